import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostProcess, hostDir, startHost } from './host-process.js';
import { fetchMetadataAndRegister, METADATA_AND_REGISTRATION_POINTS } from './otel/counted-requests.js';

interface Counter {
  name: string;
  points: { attributes: Record<string, unknown>; value: number }[];
}

let host: HostProcess;
let dir: string;
let out: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'keyhold-metrics-'));
  out = join(dir, 'metrics.json');
  host = await startHost({
    NODE_OPTIONS: `--import ${join(hostDir, 'test/otel/in-memory-meter.mjs')}`,
    KEYHOLD_TEST_METRICS_OUT: out,
  });
});
afterAll(async () => {
  await host?.stop({ removeData: true });
  rmSync(dir, { recursive: true, force: true });
});

async function eventsCounter(until: (counter: Counter) => boolean): Promise<Counter> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      const counters = JSON.parse(readFileSync(out, 'utf8')) as Counter[];
      const events = counters.find((counter) => counter.name === 'mcp_auth.events');
      if (events && until(events)) return events;
    } catch {
      // Not written yet, or caught mid-write: read again.
    }
    if (Date.now() > deadline) throw new Error(`mcp_auth.events not counted:\n${host.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the example host counts mcp_auth.events when an OpenTelemetry SDK is registered, with no option', () => {
  it('records a metadata request and a registration on the global meter provider', async () => {
    await fetchMetadataAndRegister(host.url);
    const events = await eventsCounter((counter) => counter.points.length >= 2);
    expect(events.points).toEqual(expect.arrayContaining([...METADATA_AND_REGISTRATION_POINTS]));
  });
});
