// Bundles the main entry of every runtime-neutral package as a worker would (esbuild, ESM, browser/worker
// conditions) and fails when the code that loads at start-up needs a Node built-in: since issue 28 ("main
// entries free of Node built-ins") none does, so each loads on workerd without `nodejs_compat`. Built-ins
// reached only through a dynamic `import()` (loaded on first use, never on a worker that injects its own
// fetch) are allowed and listed.
// Node-only packages (adapter-node, cli, the stores) are not checked: they are Node by design. Built-ins a
// package reaches through `process.getBuiltinModule` (webhook-kit's source reader) are not imports at all.
import { mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const esbuild = await import('esbuild');

const NEUTRAL_PACKAGES = [
  'core',
  'oauth-core',
  'mcp',
  'token-vault',
  'registry-client',
  'claim-codes',
  'webhook-kit',
];
const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);

let failed = false;
for (const name of NEUTRAL_PACKAGES) {
  const outdir = mkdtempSync(join(tmpdir(), `keyhold-worker-${name}-`));
  const entry = join(root, 'packages', name, 'dist/index.js');
  try {
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      conditions: ['workerd', 'worker', 'browser', 'import', 'default'],
      external: [...builtins],
      outdir,
      metafile: true,
      logLevel: 'silent',
    });
    const outputs = result.metafile.outputs;
    const entryOutput = Object.keys(outputs).find((file) => outputs[file].entryPoint !== undefined);
    // Everything reachable from the entry through static imports loads at start-up.
    const startup = new Set();
    const dynamicBuiltins = new Set();
    const visit = (file) => {
      if (startup.has(file) || outputs[file] === undefined) return;
      startup.add(file);
      for (const imported of outputs[file].imports) {
        if (imported.kind === 'dynamic-import') {
          continue;
        }
        if (builtins.has(imported.path)) continue;
        visit(imported.path);
      }
    };
    visit(entryOutput);
    const startupBuiltins = new Set();
    for (const file of Object.keys(outputs)) {
      for (const imported of outputs[file].imports) {
        if (!builtins.has(imported.path)) continue;
        if (startup.has(file) && imported.kind !== 'dynamic-import') startupBuiltins.add(imported.path);
        else dynamicBuiltins.add(imported.path);
      }
    }
    const refused = [...startupBuiltins];
    if (refused.length > 0) {
      failed = true;
      console.log(`FAIL worker   @keyhold/${name}: loads ${refused.join(', ')} at start-up`);
    } else {
      const later = [...dynamicBuiltins];
      console.log(
        `ok   worker   @keyhold/${name}${later.length > 0 ? ` (on first use only: ${later.join(', ')})` : ''}`,
      );
    }
  } catch (error) {
    failed = true;
    console.log(`FAIL worker   @keyhold/${name}: ${error.message}`);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
process.exit(failed ? 1 : 0);
