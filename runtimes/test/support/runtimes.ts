import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { createServer } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

export const runtimesDir = fileURLToPath(new URL('../..', import.meta.url));
const repositoryRoot = join(runtimesDir, '..');
const outDir = join(runtimesDir, '.build');
export const moduleSourcePath = join(runtimesDir, 'src/echo-module.ts');
export const WEBHOOK_SECRET = 'runtimes-webhook-secret-0123456789';

/** The runtimes this folder checks. */
export type RuntimeName = 'node' | 'bun' | 'deno' | 'workerd';

/**
 * The binary of a runtime, from its platform package: the `bun`, `deno` and `workerd` npm packages list
 * one per platform as optionalDependencies, and the package manager installs the one that fits. Their
 * own postinstall scripts are not run (they may download), so the binary is taken from there directly.
 */
export function runtimeBinary(name: Exclude<RuntimeName, 'node'>): string {
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  if (process.platform !== 'linux' && process.platform !== 'darwin') {
    throw new Error(`runtimes/: no binary mapping for ${process.platform}`);
  }
  const linux = process.platform === 'linux';
  const platform = {
    bun: {
      pkg: `@oven/bun-${linux ? 'linux' : 'darwin'}-${arch === 'arm64' ? 'aarch64' : 'x64'}`,
      bin: 'bin/bun',
    },
    deno: { pkg: `@deno/${linux ? 'linux' : 'darwin'}-${arch}${linux ? '-glibc' : ''}`, bin: 'deno' },
    workerd: {
      pkg: `@cloudflare/workerd-${linux ? 'linux' : 'darwin'}-${arch === 'arm64' ? 'arm64' : '64'}`,
      bin: 'bin/workerd',
    },
  }[name];
  const fromWrapper = createRequire(createRequire(import.meta.url).resolve(`${name}/package.json`));
  return join(dirname(fromWrapper.resolve(`${platform.pkg}/package.json`)), platform.bin);
}

/** Resolves `@keyhold/<package>[/<subpath>]` to the package's source, like the root vitest config does. */
export const keyholdFromSource: Plugin = {
  name: 'keyhold-from-source',
  setup(builder) {
    builder.onResolve({ filter: /^@keyhold\/[a-z-]+(\/[a-z-]+)?$/ }, (args) => {
      const [, name, subpath] = /^@keyhold\/([a-z-]+)(?:\/([a-z-]+))?$/.exec(args.path)!;
      return { path: join(repositoryRoot, 'packages', name!, 'src', `${subpath ?? 'index'}.ts`) };
    });
  },
};

const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];

/** Bundles one server script into `.build/<runtime>.mjs` (ESM; Node built-ins stay imports). */
export async function bundle(runtime: RuntimeName): Promise<string> {
  const entry = { node: 'serve-node.ts', bun: 'serve-bun.ts', deno: 'serve-deno.ts', workerd: 'worker.ts' }[
    runtime
  ];
  const outfile = join(outDir, `${runtime}.mjs`);
  await build({
    entryPoints: [join(runtimesDir, 'src', entry)],
    outfile,
    bundle: true,
    format: 'esm',
    platform: runtime === 'node' ? 'node' : 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: runtime === 'workerd' ? ['workerd', 'worker', 'browser', 'import'] : ['import'],
    external: nodeBuiltins,
    plugins: [keyholdFromSource],
    // workerd has no files: the worker carries the tool module's source, as a host bundles it at build time.
    define: {
      ECHO_MODULE_SOURCE: JSON.stringify(readFileSync(join(runtimesDir, 'src/echo-module.ts'), 'utf8')),
    },
    logLevel: 'silent',
  });
  return outfile;
}

/** A free loopback port (the runtime binds it a moment later). */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A running server: its origin, the child process and what it printed. */
export interface Running {
  readonly origin: string;
  readonly output: () => string;
  stop(): Promise<void>;
}

/**
 * The workerd config that serves the module bundle `bundleFile` (a file next to the config) on `port`, with
 * `bindings` as text bindings. No compatibility flag is set, so there is never `nodejs_compat`.
 */
export function workerdConfig(
  bundleFile: string,
  port: number,
  bindings: Record<string, string> = {},
): string {
  const textBindings = Object.entries(bindings)
    .map(([name, text]) => `\n    (name = "${name}", text = "${text}"),`)
    .join('');
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "${bundleFile}")],
  compatibilityDate = "2026-01-01",
  compatibilityFlags = [],
  bindings = [${textBindings}
  ],
);
`;
}

function command(runtime: RuntimeName, bundlePath: string, port: number): { file: string; args: string[] } {
  switch (runtime) {
    case 'node':
      return { file: process.execPath, args: [bundlePath] };
    case 'bun':
      return { file: runtimeBinary('bun'), args: ['run', bundlePath] };
    case 'deno':
      return {
        file: runtimeBinary('deno'),
        args: [
          'run',
          '--no-prompt',
          '--allow-net=127.0.0.1',
          '--allow-env=PORT,WEBHOOK_SECRET,MODULE_SOURCE',
          `--allow-read=${moduleSourcePath}`,
          bundlePath,
        ],
      };
    case 'workerd': {
      const configPath = join(outDir, 'workerd.capnp');
      writeFileSync(
        configPath,
        workerdConfig(basename(bundlePath), port, {
          BASE_URL: `http://127.0.0.1:${port}`,
          WEBHOOK_SECRET,
        }),
      );
      return { file: runtimeBinary('workerd'), args: ['serve', configPath, '--experimental'] };
    }
  }
}

/**
 * Bundles and starts one runtime's server on a free port, and waits (at most `startTimeoutMs`) until
 * `GET /health` answers 200. A start that fails or times out throws with what the process printed.
 */
export async function start(runtime: RuntimeName, startTimeoutMs = 20_000): Promise<Running> {
  mkdirSync(outDir, { recursive: true });
  const bundlePath = await bundle(runtime);
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const { file, args } = command(runtime, bundlePath, port);
  let printed = '';
  const child: ChildProcess = spawn(file, args, {
    cwd: outDir,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? outDir,
      PORT: String(port),
      WEBHOOK_SECRET,
      MODULE_SOURCE: moduleSourcePath,
      DENO_DIR: join(outDir, 'deno-cache'),
      DENO_NO_UPDATE_CHECK: '1',
      BUN_INSTALL_CACHE_DIR: join(outDir, 'bun-cache'),
      DO_NOT_TRACK: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  let exited: string | undefined;
  child.on('exit', (code, signal) => {
    exited = `exited with ${code ?? signal}`;
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
    });
  };
  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    if (exited !== undefined) {
      throw new Error(`${runtime} ${exited} before it served /health:\n${printed}`);
    }
    try {
      const response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(1_000) });
      if (response.status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${runtime} did not serve /health within ${startTimeoutMs} ms:\n${printed}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { origin, output: () => printed, stop };
}
