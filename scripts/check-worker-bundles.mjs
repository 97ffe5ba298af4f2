// Bundles the main entry of every runtime-neutral package as a worker would (esbuild, ESM, browser/worker
// conditions, one file) and fails when the bundle imports any Node built-in: since issue 28 ("main entries free
// of Node built-ins") none does, so each loads on workerd without `nodejs_compat`. Code that needs Node on first
// use (the SSRF-safe fetch, the default claim-scope resolver) reaches it through `nodeBuiltin` of
// @keyhold/internal (`process.getBuiltinModule`, or an import whose specifier bundlers do not follow).
// Node-only packages (adapter-node, cli, the stores) are not checked: they are Node by design.
import { builtinModules } from 'node:module';
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
  const entry = join(root, 'packages', name, 'dist/index.js');
  try {
    // One file, no code splitting, as wrangler bundles a worker: a dynamic `import()` of a bundled module is
    // inlined, and the static imports of that module are hoisted to the top of the file, so they load at
    // start-up too. Every Node built-in import in the output therefore fails a worker without nodejs_compat.
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      conditions: ['workerd', 'worker', 'browser', 'import', 'default'],
      external: [...builtins],
      metafile: true,
      logLevel: 'silent',
    });
    const refused = new Set();
    for (const output of Object.values(result.metafile.outputs)) {
      for (const imported of output.imports) if (builtins.has(imported.path)) refused.add(imported.path);
    }
    if (refused.size > 0) {
      failed = true;
      console.log(`FAIL worker   @keyhold/${name}: imports ${[...refused].join(', ')}`);
    } else {
      console.log(`ok   worker   @keyhold/${name}`);
    }
  } catch (error) {
    failed = true;
    console.log(`FAIL worker   @keyhold/${name}: ${error.message}`);
  }
}
process.exit(failed ? 1 : 0);
