import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type CliIo, EXIT } from '../src/io.js';
import { runCli } from '../src/main.js';

function memoryIo(): CliIo & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (text: string) => {
      io.out += text;
    },
    stderr: (text: string) => {
      io.err += text;
    },
    env: {},
    cwd: '/',
    stdoutIsTTY: false,
  };
  return io;
}

describe('keyhold: command dispatch', () => {
  it('prints usage and exits 0 on --help', async () => {
    const io = memoryIo();
    expect(await runCli(['--help'], io)).toBe(EXIT.ok);
    expect(io.out).toContain('Usage: keyhold');
  });

  it('prints the package version and exits 0 on --version and -v', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      const io = memoryIo();
      expect(await runCli([flag], io)).toBe(EXIT.ok);
      expect(io.out).toBe(`${version}\n`);
    }
    // The built bin, as a user runs it.
    const bin = new URL('../dist/bin.js', import.meta.url).pathname;
    expect(execFileSync(process.execPath, [bin, '--version'], { encoding: 'utf8' })).toBe(`${version}\n`);
  });

  it('exits 2 with usage when no command is given', async () => {
    const io = memoryIo();
    expect(await runCli([], io)).toBe(EXIT.usage);
  });

  it('exits 2 and names an unknown command on stderr', async () => {
    const io = memoryIo();
    expect(await runCli(['frobnicate'], io)).toBe(EXIT.usage);
    expect(io.err).toContain('unknown command "frobnicate"');
  });

  it('passes the remaining arguments to the named command', async () => {
    const io = memoryIo();
    let seen: readonly string[] = [];
    const code = await runCli(['claim', '--ttl', '1h'], io, {
      claim: async (args) => {
        seen = args;
        return EXIT.ok;
      },
    });
    expect(code).toBe(EXIT.ok);
    expect(seen).toEqual(['--ttl', '1h']);
  });
});
