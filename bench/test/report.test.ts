import { describe, expect, it } from 'vitest';
import {
  compare,
  markdownSection,
  markdownTable,
  median,
  replaceSection,
  SECTION_END,
  SECTION_START,
  type Summary,
  summarise,
} from '../src/report.js';

const summaries: Summary[] = [
  { scenario: 'cc', target: 'floor', rps: 10_000, p99: 4, failures: 0, rounds: 3 },
  { scenario: 'cc', target: 'keyhold', rps: 8_000, p99: 5, failures: 0, rounds: 3 },
  { scenario: 'cc', target: 'other', rps: 3_500, p99: 15, failures: 0, rounds: 3 },
];

describe('medians', () => {
  it('takes the middle value, or the mean of the middle two', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('summarises rounds by their medians and sums the failures', () => {
    const summary = summarise({
      scenario: 'cc',
      target: 'floor',
      rounds: [
        { rps: 100, p99: 9, failures: 0 },
        { rps: 300, p99: 3, failures: 2 },
        { rps: 200, p99: 5, failures: 1 },
      ],
    });
    expect(summary).toEqual({ scenario: 'cc', target: 'floor', rps: 200, p99: 5, failures: 3, rounds: 3 });
  });
});

describe('comparisons against the issue targets', () => {
  it('judges a throughput ratio (at least) and a p99 ratio (at most)', () => {
    expect(compare(summaries, 'cc', 'keyhold', 'floor', { metric: 'rps', atLeast: 0.75 })).toMatchObject({
      value: 0.8,
      met: true,
    });
    expect(compare(summaries, 'cc', 'keyhold', 'floor', { metric: 'p99', atMost: 1.5 })).toMatchObject({
      value: 1.25,
      met: true,
    });
    expect(compare(summaries, 'cc', 'keyhold', 'other', { metric: 'rps', atLeast: 2 })?.met).toBe(true);
    expect(compare(summaries, 'cc', 'other', 'floor', { metric: 'rps', atLeast: 0.75 })?.met).toBe(false);
  });

  it('is undefined when a target was not measured (a BENCH_ONLY run)', () => {
    expect(compare(summaries, 'cc', 'keyhold', 'absent', { metric: 'rps', atLeast: 1 })).toBeUndefined();
  });
});

describe('BENCHMARKS.md section', () => {
  it('tabulates medians with the ratio to the scenario first row', () => {
    const table = markdownTable(summaries);
    expect(table.split('\n')).toEqual([
      '| scenario | target | req/s (median) | p99 (median) | ÷ first row | rounds | failed requests |',
      '|---|---|---|---|---|---|---|',
      '| cc | floor | 10,000 | 4.0 ms | 1.00 | 3 | 0 |',
      '| cc | keyhold | 8,000 | 5.0 ms | 0.80 | 3 | 0 |',
      '| cc | other | 3,500 | 15 ms | 0.35 | 3 | 0 |',
    ]);
  });

  it('replaces only the text between the markers', () => {
    const document = `# Benchmarks\n\nkept above\n\n${SECTION_START}\nold\n${SECTION_END}\n\nkept below\n`;
    const updated = replaceSection(document, 'new figures');
    expect(updated).toBe(
      `# Benchmarks\n\nkept above\n\n${SECTION_START}\nnew figures\n${SECTION_END}\n\nkept below\n`,
    );
    expect(replaceSection(updated, 'new figures')).toBe(updated);
  });

  it('appends the section with its markers when the document has none', () => {
    expect(replaceSection('# Benchmarks\n\n| a |\n', 'figures')).toBe(
      `# Benchmarks\n\n| a |\n\n${SECTION_START}\nfigures\n${SECTION_END}\n`,
    );
  });

  it('names the machine, the date and the load average of the run', () => {
    const section = markdownSection(
      {
        date: '2026-11-25T12:00:00Z',
        cores: 2,
        cpuModel: 'Test CPU',
        memoryGiB: 24,
        node: '20.20.2',
        loadSamples: [1.5, 2.5, 2],
        durationSeconds: 3,
        connections: 32,
        rounds: 3,
        quick: false,
      },
      summaries,
      [],
    );
    expect(section).toContain('2026-11-25T12:00:00Z on 2 cores (Test CPU), 24 GiB, Node 20.20.2');
    expect(section).toContain('load average during the run 1.50–2.50 (median 2.00)');
    expect(section).toContain('| cc | keyhold | 8,000 |');
  });
});
