import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const hostDir: string = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot: string = join(hostDir, '../..');

/** A host started as the README starts it (the built `dist/main.js`), on a free port. */
export interface HostProcess {
  readonly url: string;
  readonly dataDir: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for exit; the data directory is kept unless `removeData`. */
  stop(options?: { removeData?: boolean }): Promise<void>;
}

export async function startHost(env: Record<string, string> = {}, dataDir?: string): Promise<HostProcess> {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'keyhold-host-'));
  const child = spawn(process.execPath, [join(hostDir, 'dist/main.js')], {
    env: {
      ...process.env,
      PORT: '0',
      KEYHOLD_DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      SVC_SINGLE_USER: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /listening on (https?:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`host exited with ${code}:\n${out}`)));
  });
  return {
    url,
    dataDir: dir,
    child,
    output: () => out,
    stop: async ({ removeData = false } = {}) => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      if (removeData) rmSync(dir, { recursive: true, force: true });
    },
  };
}
