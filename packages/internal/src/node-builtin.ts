/**
 * A Node built-in module, loaded when first needed and never through a static import: a worker bundler that
 * does not split chunks (wrangler) hoists the static imports of lazily loaded code to the top of its one
 * file, so a worker without `nodejs_compat` would fail at start-up even if it never reaches the code that
 * needs the module. `process.getBuiltinModule` (Node ≥ 20.16, Bun, Deno) answers without an import; elsewhere
 * the specifier sits in a variable, which bundlers leave alone. Rejects on a runtime without the module.
 *
 * @example
 * ```ts
 * const { realpath } = await nodeBuiltin<typeof import('node:fs/promises')>('node:fs/promises');
 * ```
 */
export async function nodeBuiltin<T>(id: `node:${string}`): Promise<T> {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const direct = runtime?.getBuiltinModule?.(id) as T | undefined;
  if (direct !== undefined) return direct;
  const specifier: string = id;
  return (await import(/* @vite-ignore */ specifier)) as T;
}
