// Type-checks every example a user reads: each ```ts block of packages/*/README.md and each ```ts block
// under a TSDoc `@example` tag in packages/*/src. Each example becomes its own module in `.examples/`
// (git-ignored; open a file there to see what was checked) and one TypeScript program checks them all
// against the packages' BUILT types, so run `pnpm run build` first.
//
// Examples may leave out the obvious: a name the example's own package (or @keyhold/core) exports is
// imported for it, and any other undeclared name (`server`, `req`, `store`) is declared `any`. Everything
// else is checked: Keyhold function names, option names and argument types.
//
//   node scripts/check-examples.mjs     (pnpm run check:examples)
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { packageEntries } from './package-entries.mjs';

const started = performance.now();
const root = new URL('..', import.meta.url).pathname;
const packagesDir = join(root, 'packages');
const outputDir = join(root, '.examples');
/**
 * "Cannot find name" in all its wordings: plain (2304), "did you mean" (2552), globals of test runners,
 * Node, Bun and the DOM (2580-2593, 2867, 2868), and a shorthand property with no such value (18004).
 */
const UNDECLARED_NAME_CODES = new Set([
  2304, 2552, 2580, 2581, 2582, 2583, 2584, 2591, 2592, 2593, 2867, 2868, 18004,
]);
/** "Cannot find module": a third-party library the example shows but no workspace package installs. */
const MODULE_NOT_FOUND_CODES = new Set([2307, 2792]);
/** "A 'return' statement can only be used within a function body": the example is a function's body. */
const RETURN_OUTSIDE_FUNCTION = 1108;
const MAX_ROUNDS = 5;

function filesUnder(dir, accept) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(path, accept) : accept(path) ? [path] : [];
    })
    .sort();
}

const packages = packageEntries(packagesDir);

const missing = packages.flatMap((pkg) => pkg.entries.filter((entry) => !existsSync(entry.file)));
if (missing.length > 0) {
  console.error(
    `check-examples: built declarations missing (run \`pnpm run build\` first):\n${missing
      .map((entry) => `  ${relative(root, entry.file)}`)
      .join('\n')}`,
  );
  process.exit(1);
}

const FENCE_OPEN = /^```(ts|typescript)\s*$/;
const FENCE_CLOSE = /^```\s*$/;

/** The ```ts blocks of lines already stripped of any comment prefix; `firstLine` is 1-based. */
function fencedBlocks(lines, firstLineNumber) {
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE_OPEN.test(lines[i].trim())) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !FENCE_CLOSE.test(lines[end].trim())) end++;
    blocks.push({ line: firstLineNumber + start, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** The ```ts blocks that follow an `@example` tag (up to the next tag) in the file's TSDoc comments. */
function tsdocExamples(text) {
  const examples = [];
  for (const comment of text.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const commentLine = text.slice(0, comment.index).split('\n').length;
    const lines = comment[0].split('\n').map((line) => line.replace(/^\s*\/?\*\*? ?/, ''));
    for (let i = 0; i < lines.length; i++) {
      if (!/^@example\b/.test(lines[i].trim())) continue;
      let end = i + 1;
      let inFence = false;
      while (end < lines.length) {
        const trimmed = lines[end].trim();
        if (FENCE_OPEN.test(trimmed) || (inFence && FENCE_CLOSE.test(trimmed))) inFence = !inFence;
        else if (!inFence && /^@\w/.test(trimmed)) break;
        end++;
      }
      examples.push(...fencedBlocks(lines.slice(i + 1, end), commentLine + i + 1));
      i = end - 1;
    }
  }
  return examples;
}

/** Every example of every package, each with where it came from and where it is written. */
function collectExamples() {
  const examples = [];
  for (const pkg of packages) {
    const readme = join(pkg.dir, 'README.md');
    const sources = [
      ...(existsSync(readme)
        ? [{ file: readme, blocks: fencedBlocks(readFileSync(readme, 'utf8').split('\n'), 0) }]
        : []),
      ...filesUnder(join(pkg.dir, 'src'), (path) => /\.ts$/.test(path) && !/\.(test|d)\.ts$/.test(path)).map(
        (file) => ({ file, blocks: tsdocExamples(readFileSync(file, 'utf8')) }),
      ),
    ];
    for (const { file, blocks } of sources) {
      blocks.forEach((block, index) => {
        const within = relative(pkg.dir, file).replace(/\.(ts|md)$/, '');
        examples.push({
          pkg,
          source: relative(root, file),
          number: index + 1,
          line: block.line,
          code: block.code,
          path: join(outputDir, pkg.folder, `${within}.example-${index + 1}.ts`),
          imports: new Map(),
          declared: new Set(),
          functionBody: false,
        });
      });
    }
  }
  return examples;
}

const options = {
  target: ts.ScriptTarget.ES2022,
  // The packages' own libs, and what a project without a `lib` setting gets: DOM globals such as `name` and
  // `status` are declared, so an example must not use them as free variables.
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  // A callback handed to a free variable (`app.all('/mcp', (req, res) => ...)`) has no contextual type;
  // its parameters are the host framework's business, not the example's.
  noImplicitAny: false,
  noEmit: true,
  skipLibCheck: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  types: ['node'],
};

/** Where an example's imports resolve from: its own package's source folder, so its dependencies apply. */
function resolutionBaseOf(containingFile) {
  const within = relative(outputDir, containingFile);
  if (within.startsWith('..')) return undefined;
  return join(packagesDir, within.split(sep)[0], 'src', 'index.ts');
}

/** `@keyhold/<x>[/<sub>]` → its built `.d.ts`, for an example importing a package its own does not list. */
const workspaceTypes = new Map(
  packages.flatMap((pkg) => pkg.entries.map((entry) => [entry.specifier, entry.file])),
);

function createHost() {
  const host = ts.createCompilerHost(options, true);
  const cache = ts.createModuleResolutionCache(root, (name) => name, options);
  const resolve = (name, containingFile, mode) =>
    ts.resolveModuleName(name, containingFile, options, host, cache, undefined, mode).resolvedModule;
  host.resolveModuleNameLiterals = (literals, containingFile, _redirect, _options, containingSourceFile) =>
    literals.map((literal) => {
      const base = resolutionBaseOf(containingFile);
      if (!base) {
        const mode = ts.getModeForUsageLocation(containingSourceFile, literal, options);
        return { resolvedModule: resolve(literal.text, containingFile, mode) };
      }
      const esm = ts.ModuleKind.ESNext;
      const typesFile = workspaceTypes.get(literal.text);
      const resolvedModule =
        resolve(literal.text, base, esm) ??
        (typesFile
          ? { resolvedFileName: typesFile, extension: ts.Extension.Dts, isExternalLibraryImport: true }
          : undefined) ??
        // Third-party modules a README shows (express, hono) may be installed for a sibling package only.
        packages.map((pkg) => resolve(literal.text, join(pkg.dir, 'src', 'index.ts'), esm)).find(Boolean);
      return { resolvedModule };
    });
  return host;
}

/**
 * The example's code; a function-body example (one that returns) is wrapped after its import lines in an
 * async function opened on the same line as its first statement, so that line numbers stay the same.
 */
function exampleCode(example) {
  if (!example.functionBody) return example.code;
  const parsed = ts.createSourceFile('example.ts', example.code, ts.ScriptTarget.Latest, false);
  const body = parsed.statements.find((statement) => !ts.isImportDeclaration(statement));
  if (!body) return example.code;
  const start = body.getStart(parsed);
  return `${example.code.slice(0, start)}async function example() { ${example.code.slice(start)}\n}`;
}

function moduleText(example) {
  const imports = [...example.imports].map(([name, from]) => `import { ${name} } from '${from}';`);
  // Free variables of the example: a value and a type of the same name, both `any`.
  const free = [...example.declared].map((name) => `declare const ${name}: any;\ntype ${name} = any;`);
  // Added after the example's own lines, so that diagnostic line numbers match the example's.
  return [exampleCode(example), '', ...imports, ...free, 'export {};', ''].join('\n');
}

const examples = collectExamples();
rmSync(outputDir, { recursive: true, force: true });
/**
 * Third-party modules no workspace package installs (`pino`), declared as untyped ambient modules; a
 * `@keyhold/*` or relative import that does not resolve stays an error.
 */
const untypedModules = new Set();
const untypedModulesFile = join(outputDir, 'untyped-modules.d.ts');
const host = createHost();

/** name → entry specifier, for the names a package's entries export; the main entry wins. */
function exportedNames(program, pkg) {
  const checker = program.getTypeChecker();
  const names = new Map();
  for (const entry of pkg.entries) {
    const source = program.getSourceFile(entry.file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) continue;
    for (const exported of checker.getExportsOfModule(symbol))
      if (!names.has(exported.name)) names.set(exported.name, entry.specifier);
  }
  return names;
}

let program;
let pending = examples;
const diagnosticsOf = new Map();
const entryFiles = packages.flatMap((pkg) => pkg.entries.map((entry) => entry.file));
let namesOf;
for (let round = 1; round <= MAX_ROUNDS && pending.length > 0; round++) {
  for (const example of pending) {
    mkdirSync(dirname(example.path), { recursive: true });
    writeFileSync(example.path, moduleText(example));
  }
  const declaredUntyped = new Set(untypedModules);
  writeFileSync(
    untypedModulesFile,
    [...untypedModules].map((name) => `declare module '${name}';\n`).join(''),
  );
  program = ts.createProgram(
    [...examples.map((example) => example.path), untypedModulesFile, ...entryFiles],
    options,
    host,
    program,
  );
  namesOf ??= new Map(packages.map((pkg) => [pkg.name, exportedNames(program, pkg)]));
  const coreNames = namesOf.get('@keyhold/core');
  const changed = [];
  for (const example of pending) {
    const source = program.getSourceFile(example.path);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    diagnosticsOf.set(example, diagnostics);
    const undeclared = new Set(
      diagnostics
        .filter((diagnostic) => UNDECLARED_NAME_CODES.has(diagnostic.code) && diagnostic.start !== undefined)
        .map((diagnostic) => source.text.slice(diagnostic.start, diagnostic.start + diagnostic.length)),
    );
    let added = false;
    for (const diagnostic of diagnostics) {
      if (!MODULE_NOT_FOUND_CODES.has(diagnostic.code) || diagnostic.start === undefined) continue;
      const name = source.text.slice(diagnostic.start + 1, diagnostic.start + diagnostic.length - 1);
      if (name.startsWith('.') || name.startsWith('@keyhold/') || declaredUntyped.has(name)) continue;
      untypedModules.add(name);
      added = true;
    }
    if (
      !example.functionBody &&
      diagnostics.some((diagnostic) => diagnostic.code === RETURN_OUTSIDE_FUNCTION)
    ) {
      example.functionBody = true;
      added = true;
    }
    for (const name of undeclared) {
      if (example.imports.has(name) || example.declared.has(name)) continue;
      const from = namesOf.get(example.pkg.name).get(name) ?? coreNames.get(name);
      if (from) example.imports.set(name, from);
      else example.declared.add(name);
      added = true;
    }
    if (added) changed.push(example);
  }
  pending = changed;
}

const failures = [];
for (const example of examples) {
  const codeLines = example.code.split('\n').length;
  for (const diagnostic of diagnosticsOf.get(example) ?? []) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n    ');
    const at =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line
        : 0;
    const line = example.line + (at < codeLines ? at : 0);
    failures.push(`${example.source}:${line} (example ${example.number}): TS${diagnostic.code} ${message}`);
  }
}

const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (failures.length > 0) {
  console.error(failures.join('\n'));
  const broken = new Set(failures.map((failure) => failure.replace(/:\d+ \(example (\d+)\).*/, ' $1'))).size;
  console.error(
    `\ncheck-examples: ${broken} of ${examples.length} examples do not compile (${failures.length} errors, ${seconds} s). The checked modules are in .examples/.`,
  );
  process.exitCode = 1;
} else {
  console.log(`check-examples: all ${examples.length} examples compile (${seconds} s).`);
}
