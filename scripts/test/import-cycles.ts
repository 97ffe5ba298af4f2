import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { SourceImport } from './source-imports.js';

/** The file a relative specifier names: `./x.js` → `x.ts`, `./dir` → `dir/index.ts`; undefined when absent. */
export function resolveRelativeImport(fromFile: string, specifier: string): string | undefined {
  const target = resolve(dirname(fromFile), specifier);
  const stem = target.replace(/\.(c|m)?js$/, '');
  const candidates = [
    target,
    `${stem}.ts`,
    `${stem}.mts`,
    `${stem}.cts`,
    `${target}/index.ts`,
    `${stem}/index.ts`,
  ];
  return candidates.find((candidate) => /\.(c|m)?ts$/.test(candidate) && existsSync(candidate));
}

/** The graph of relative imports between a package's files: file → the files it imports. */
export function relativeImportGraph(imports: SourceImport[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const entry of imports) {
    if (!graph.has(entry.file)) graph.set(entry.file, new Set());
    if (!entry.specifier.startsWith('.')) continue;
    const target = resolveRelativeImport(entry.file, entry.specifier);
    if (target) graph.get(entry.file)!.add(target);
  }
  return graph;
}

/**
 * The strongly connected components with more than one file (or a file importing itself), each sorted,
 * found with Tarjan's algorithm: every import cycle lies inside exactly one of them.
 */
export function importCycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;

  const connect = (file: string): void => {
    index.set(file, next);
    lowLink.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        connect(target);
        lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(target)!));
      } else if (onStack.has(target)) {
        lowLink.set(file, Math.min(lowLink.get(file)!, index.get(target)!));
      }
    }
    if (lowLink.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) components.push(component.sort());
  };

  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One concrete cycle through the component's first file, for a failure message: a → b → a. */
export function exampleCycle(graph: Map<string, Set<string>>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const target of graph.get(file) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [file];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(target)) {
        previous.set(target, file);
        queue.push(target);
      }
    }
  }
  return component;
}
