// The public API of every package, read from its BUILT type declarations (one entry per `exports` subpath),
// written to `api/<package>.api.md` so that any change to a public surface shows up as a diff in review.
//
//   node scripts/api-report.mjs                          rewrite api/*.api.md (pnpm run api:report)
//   node scripts/api-report.mjs --check                  fail, with a summary, if they differ (pnpm run check:api)
//   node scripts/api-report.mjs --fail-on-shared-names   also fail when two packages export the same name
//                                                        from different declarations
//   node scripts/api-report.mjs --fail-on-shared-names=all   ... or re-export one package's name from another
//
// Needs `pnpm run build` first: it reads `packages/*/dist/*.d.ts`, never the sources.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { packageEntries } from './package-entries.mjs';

const root = new URL('..', import.meta.url).pathname;
const packagesDir = join(root, 'packages');
const reportDir = join(root, 'api');
const args = new Set(process.argv.slice(2));
const checking = args.has('--check');
const failOnSharedNames = args.has('--fail-on-shared-names') || args.has('--fail-on-shared-names=all');
const failOnReexports = args.has('--fail-on-shared-names=all');

const packages = packageEntries(packagesDir);
const missing = packages.flatMap((pkg) => pkg.entries.filter((entry) => !existsSync(entry.file)));
if (missing.length > 0) {
  console.error(
    `api-report: built declarations missing (run \`pnpm run build\` first):\n${missing
      .map((entry) => `  ${relative(root, entry.file)}`)
      .join('\n')}`,
  );
  process.exit(1);
}

const program = ts.createProgram(
  packages.flatMap((pkg) => pkg.entries.map((entry) => entry.file)),
  {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  },
);
const checker = program.getTypeChecker();
const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });

/** The package a declaration file belongs to: a workspace package by folder, or the node_modules name. */
function ownerOf(fileName) {
  const real = realpathSync(fileName);
  const inWorkspace = relative(packagesDir, real);
  if (!inWorkspace.startsWith('..')) {
    const folder = inWorkspace.split(sep)[0];
    return packages.find((pkg) => pkg.folder === folder)?.name ?? folder;
  }
  const parts = real.split(`${sep}node_modules${sep}`).at(-1).split(sep);
  return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
}

function kindsOf(symbol) {
  const kinds = [];
  const flags = symbol.flags;
  if (flags & ts.SymbolFlags.Class) kinds.push('class');
  if (flags & ts.SymbolFlags.Function) kinds.push('function');
  if (flags & ts.SymbolFlags.Variable) {
    const list = symbol.declarations?.find(ts.isVariableDeclaration)?.parent;
    kinds.push(list && list.flags & ts.NodeFlags.Const ? 'const' : 'let');
  }
  if (flags & ts.SymbolFlags.Enum) kinds.push('enum');
  if (flags & ts.SymbolFlags.Interface) kinds.push('interface');
  if (flags & ts.SymbolFlags.TypeAlias) kinds.push('type');
  if (flags & (ts.SymbolFlags.ValueModule | ts.SymbolFlags.NamespaceModule)) kinds.push('namespace');
  return kinds.length > 0 ? kinds : ['unknown'];
}

/** A declaration as `tsc` would print it, without comments, `export` or `declare`. */
function declarationText(declaration) {
  const source = declaration.getSourceFile();
  if (ts.isVariableDeclaration(declaration)) {
    const keyword = declaration.parent.flags & ts.NodeFlags.Const ? 'const' : 'let';
    return `${keyword} ${printer.printNode(ts.EmitHint.Unspecified, declaration, source)};`;
  }
  return printer
    .printNode(ts.EmitHint.Unspecified, declaration, source)
    .replace(/^(export |declare |default )+/, '')
    .trimEnd();
}

/** Every export of one entry: its name, kinds, declaration text, and where it is really declared. */
function entryExports(pkg, entry) {
  const source = program.getSourceFile(entry.file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return [];
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((exported) => {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      const declarations = symbol.declarations ?? [];
      const first = declarations[0];
      const owner = first ? ownerOf(first.getSourceFile().fileName) : pkg.name;
      const identity = first ? `${realpathSync(first.getSourceFile().fileName)}:${first.pos}` : exported.name;
      const declaredAs = symbol.name !== exported.name && symbol.name !== 'default' ? symbol.name : undefined;
      const text =
        owner === pkg.name
          ? declarations.map(declarationText).join('\n')
          : `export { ${declaredAs ?? exported.name}${declaredAs ? ` as ${exported.name}` : ''} } from '${owner}';`;
      return { name: exported.name, kinds: kindsOf(symbol), text, owner, identity };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const reports = new Map();
/** name → the packages exporting it, each with the identity of the declaration it resolves to. */
const exporters = new Map();
for (const pkg of packages) {
  const lines = [
    `# ${pkg.name} — API report`,
    '',
    'Generated by `pnpm run api:report` from the built `dist/*.d.ts`. Do not edit: rebuild and regenerate.',
    '',
  ];
  for (const entry of pkg.entries) {
    const exports = entryExports(pkg, entry);
    lines.push(`## \`${entry.specifier}\``, '');
    if (exports.length === 0) lines.push('(no exports)', '');
    for (const exported of exports) {
      lines.push(
        `### \`${exported.name}\` (${exported.kinds.join(', ')})`,
        '',
        '```ts',
        exported.text,
        '```',
        '',
      );
      const list = exporters.get(exported.name) ?? [];
      if (!list.some((item) => item.pkg === pkg.name))
        list.push({ pkg: pkg.name, identity: exported.identity });
      exporters.set(exported.name, list);
    }
  }
  reports.set(`${pkg.folder}.api.md`, `${lines.join('\n').trimEnd()}\n`);
}

/** Export names of one report, each with its text, to summarize what changed. */
function exportsIn(report) {
  const found = new Map();
  let entry = '';
  for (const section of report.split(/^(?=## |### )/m)) {
    const heading = section.match(/^(##|###) `([^`]+)`/);
    if (!heading) continue;
    if (heading[1] === '##') entry = heading[2];
    else found.set(`${entry} ${heading[2]}`, section);
  }
  return found;
}

if (checking) {
  const problems = [];
  const committed = existsSync(reportDir)
    ? readdirSync(reportDir).filter((name) => name.endsWith('.api.md'))
    : [];
  for (const name of committed)
    if (!reports.has(name)) problems.push(`api/${name}: no such package any more (delete the file)`);
  for (const [name, report] of reports) {
    const path = join(reportDir, name);
    if (!existsSync(path)) {
      problems.push(`api/${name}: missing`);
      continue;
    }
    const before = readFileSync(path, 'utf8');
    if (before === report) continue;
    const old = exportsIn(before);
    const now = exportsIn(report);
    const changes = [];
    for (const key of now.keys()) if (!old.has(key)) changes.push(`    + ${key}`);
    for (const key of old.keys()) if (!now.has(key)) changes.push(`    - ${key}`);
    for (const [key, text] of now) if (old.has(key) && old.get(key) !== text) changes.push(`    ~ ${key}`);
    problems.push(`api/${name} is out of date:\n${changes.join('\n') || '    (header or formatting)'}`);
  }
  if (problems.length > 0) {
    console.error(`check:api: the public API differs from the committed report.\n${problems.join('\n')}`);
    console.error('If the change is intended, run `pnpm run build && pnpm run api:report` and commit api/.');
    process.exitCode = 1;
  } else {
    console.log(`check:api: ${reports.size} API reports match the built packages.`);
  }
} else {
  mkdirSync(reportDir, { recursive: true });
  for (const name of readdirSync(reportDir))
    if (name.endsWith('.api.md') && !reports.has(name)) rmSync(join(reportDir, name));
  for (const [name, report] of reports) writeFileSync(join(reportDir, name), report);
  console.log(`api-report: wrote ${reports.size} reports to api/.`);
}

// One vocabulary: the same name should not mean two things in two packages. A package re-exporting
// another's declaration is listed apart, since it is the same thing under the same name.
const shared = [...exporters].filter(([, list]) => list.length > 1).sort(([a], [b]) => (a < b ? -1 : 1));
const distinct = shared.filter(([, list]) => new Set(list.map((item) => item.identity)).size > 1);
const reexported = shared.filter(([, list]) => new Set(list.map((item) => item.identity)).size === 1);
const describe = ([name, list]) => `  ${name}: ${list.map((item) => item.pkg).join(', ')}`;
if (distinct.length > 0) {
  console.log(`\nNames exported by two or more packages with different declarations (${distinct.length}):`);
  console.log(distinct.map(describe).join('\n'));
}
if (reexported.length > 0) {
  console.log(`\nNames one package re-exports from another (${reexported.length}):`);
  console.log(reexported.map(describe).join('\n'));
}
if ((failOnSharedNames && distinct.length > 0) || (failOnReexports && reexported.length > 0)) {
  console.error('\n--fail-on-shared-names: give each of these names one home and one meaning.');
  process.exitCode = 1;
}
