// The dependency rules between Keyhold's packages (issue 19, "one vocabulary, one shape"). Each rule reads
// every package's `src/` imports (parsed, so TSDoc examples never count) and its package.json dependency
// fields. Tests, examples, conformance and runtimes are outside the rules: they may import anything.
import { describe, expect, it } from 'vitest';
import { exampleCycle, importCycles, relativeImportGraph } from './import-cycles.js';
import { type SourceImport, sourceImports } from './source-imports.js';
import {
  displayPath,
  packageNameOf,
  type WorkspacePackage,
  workspacePackages,
} from './workspace-packages.js';

const CORE = 'core';
/** Keyhold's private helpers: bundled into each package that uses them, depending on core alone. */
const INTERNAL = 'internal';
const SHARED = ['@keyhold/core', '@keyhold/internal'];
/** The packages that each own one concern and share only `@keyhold/core`'s vocabulary. */
const DOMAIN_PACKAGES = ['oauth-core', 'token-vault', 'claim-codes', 'webhook-kit', 'registry-client', 'mcp'];
/** Storage backends: they implement the domain packages' storage interfaces, so they need only their types. */
const STORE_PACKAGES = ['store-sql-common', 'store-postgres', 'store-sqlite', 'store-redis'];
/**
 * Hosts that assemble the others: the Node adapter and the CLI may depend on whatever they need (the CLI
 * opens the stores and runs the OAuth server's administration), so no rule below constrains them.
 */
const HOST_PACKAGES = ['adapter-node', 'cli'];

const packages = workspacePackages();
const byFolder = new Map(packages.map((pkg) => [pkg.folder, pkg]));
const importsOf = new Map(packages.map((pkg) => [pkg.folder, pkg.sourceFiles.flatMap(sourceImports)]));

function packagesIn(folders: string[]): WorkspacePackage[] {
  return folders.map((folder) => {
    const pkg = byFolder.get(folder);
    if (!pkg) throw new Error(`packages/${folder} is named in a boundary rule but does not exist`);
    return pkg;
  });
}

function describeImport(entry: SourceImport): string {
  const kind = entry.typeOnly ? 'import type' : 'import';
  return `${displayPath(entry.file)}:${entry.line}: ${kind} '${entry.specifier}'`;
}

/** Every other `@keyhold/*` package a package's `src/` imports (its own subpaths are not a dependency). */
function keyholdImports(pkg: WorkspacePackage): SourceImport[] {
  return importsOf
    .get(pkg.folder)!
    .filter(
      (entry) =>
        entry.specifier.startsWith('@keyhold/') && packageNameOf(entry.specifier) !== pkg.manifest.name,
    );
}

/** `dependencies` and `peerDependencies` entries: what a consumer installs along with the package. */
function installedWith(pkg: WorkspacePackage): { field: string; name: string }[] {
  return (['dependencies', 'peerDependencies'] as const).flatMap((field) =>
    Object.keys(pkg.manifest[field] ?? {}).map((name) => ({ field, name })),
  );
}

describe('every package is placed under exactly one rule', () => {
  it('each folder under packages/ is core, a domain package, a store or a host', () => {
    const classified = [CORE, INTERNAL, ...DOMAIN_PACKAGES, ...STORE_PACKAGES, ...HOST_PACKAGES];
    expect(packages.map((pkg) => pkg.folder).filter((folder) => !classified.includes(folder))).toEqual([]);
    expect(classified.length).toBe(new Set(classified).size);
  });
});

describe('core depends on no Keyhold package', () => {
  const [core] = packagesIn([CORE]);

  it('core/src imports no other @keyhold package', () => {
    expect(keyholdImports(core!).map(describeImport)).toEqual([]);
  });

  it('core/package.json lists no @keyhold package in dependencies or peerDependencies', () => {
    const listed = installedWith(core!).filter(({ name }) => name.startsWith('@keyhold/'));
    expect(listed.map(({ field, name }) => `core/package.json: ${field} lists ${name}`)).toEqual([]);
  });
});

describe('the private helpers depend on core alone', () => {
  it('internal/src imports no @keyhold package but @keyhold/core', () => {
    const [internal] = packagesIn([INTERNAL]);
    const offending = keyholdImports(internal!).filter(
      (entry) => packageNameOf(entry.specifier) !== '@keyhold/core',
    );
    expect(offending.map(describeImport)).toEqual([]);
  });
});

// The one exception: the MCP endpoint takes the resource its authorization server describes
// (`ProtectedResource`, `AuthorizationServer` of oauth-core) as types only, listed as an optional peer.
const TYPE_ONLY_PEERS: Readonly<Record<string, string>> = { mcp: '@keyhold/oauth-core' };

describe('domain packages depend only on @keyhold/core (and the bundled helpers) among Keyhold packages', () => {
  // Type-only imports count too: a type in a published .d.ts needs its package installed.
  it.each(DOMAIN_PACKAGES)(
    '%s/src imports no Keyhold package but @keyhold/core and @keyhold/internal',
    (folder) => {
      const [pkg] = packagesIn([folder]);
      const offending = keyholdImports(pkg!).filter(
        (entry) =>
          !SHARED.includes(packageNameOf(entry.specifier)) &&
          !(entry.typeOnly && packageNameOf(entry.specifier) === TYPE_ONLY_PEERS[folder]),
      );
      expect(offending.map(describeImport)).toEqual([]);
    },
  );

  it.each(DOMAIN_PACKAGES)(
    '%s/package.json lists no Keyhold package but @keyhold/core in dependencies or peerDependencies',
    (folder) => {
      const [pkg] = packagesIn([folder]);
      const listed = installedWith(pkg!).filter(
        ({ field, name }) =>
          name.startsWith('@keyhold/') &&
          name !== '@keyhold/core' &&
          !(field === 'peerDependencies' && name === TYPE_ONLY_PEERS[folder]),
      );
      expect(listed.map(({ field, name }) => `${folder}/package.json: ${field} lists ${name}`)).toEqual([]);
    },
  );
});

describe('stores use domain packages for their types only', () => {
  const domainNames = packagesIn(DOMAIN_PACKAGES).map((pkg) => pkg.manifest.name);
  const violations = packagesIn(STORE_PACKAGES).flatMap((pkg) => [
    ...keyholdImports(pkg)
      .filter((entry) => domainNames.includes(packageNameOf(entry.specifier)) && !entry.typeOnly)
      .map(describeImport),
    // Optional peer or dev dependencies are fine: the application already has the domain package.
    ...Object.keys(pkg.manifest.dependencies ?? {})
      .filter((name) => domainNames.includes(name))
      .map((name) => `${pkg.folder}/package.json: dependencies lists ${name}`),
  ]);

  it('store src files import domain packages with `import type` / `export type` only', () => {
    const offending = violations.filter((violation) => !violation.includes('/package.json:'));
    expect(offending).toEqual([]);
  });

  it('stores list domain packages only as peer or dev dependencies, never in dependencies', () => {
    const offending = violations.filter((violation) => violation.includes('/package.json:'));
    expect(offending).toEqual([]);
  });

  it('store src files import no Keyhold package but core, the private helpers and domain types', () => {
    const allowed = [...SHARED, '@keyhold/store-sql-common', ...domainNames];
    const offending = packagesIn(STORE_PACKAGES).flatMap((pkg) =>
      keyholdImports(pkg).filter((entry) => !allowed.includes(packageNameOf(entry.specifier))),
    );
    expect(offending.map(describeImport)).toEqual([]);
  });
});

describe('a private package is bundled into the packages that use it, never installed with them', () => {
  const privateNames = packages.filter((pkg) => pkg.manifest.private).map((pkg) => pkg.manifest.name);
  const published = packages.filter((pkg) => !pkg.manifest.private);

  it.each(published.map((pkg) => pkg.folder))(
    '%s/package.json lists a private package in devDependencies only (so tsup compiles it in)',
    (folder) => {
      const listed = installedWith(byFolder.get(folder)!).filter(({ name }) => privateNames.includes(name));
      expect(listed.map(({ field, name }) => `${folder}/package.json: ${field} lists ${name}`)).toEqual([]);
    },
  );
});

describe('only @keyhold/mcp uses the MCP SDK', () => {
  const others = packages.filter((pkg) => pkg.folder !== 'mcp');
  const isSdk = (name: string) => name.startsWith('@modelcontextprotocol/');

  it.each(others.map((pkg) => pkg.folder))('%s/src imports no @modelcontextprotocol module', (folder) => {
    const offending = importsOf.get(folder)!.filter((entry) => isSdk(entry.specifier));
    expect(offending.map(describeImport)).toEqual([]);
  });

  it.each(others.map((pkg) => pkg.folder))(
    '%s/package.json lists no @modelcontextprotocol package in dependencies or peerDependencies',
    (folder) => {
      const listed = installedWith(byFolder.get(folder)!).filter(({ name }) => isSdk(name));
      expect(listed.map(({ field, name }) => `${folder}/package.json: ${field} lists ${name}`)).toEqual([]);
    },
  );
});

describe('no import cycles between the files of a package', () => {
  // Type-only imports count: a cycle of types still means two files that cannot be read apart.
  const cycles = packages.flatMap((pkg) => {
    const graph = relativeImportGraph(importsOf.get(pkg.folder)!);
    return importCycles(graph).map((component) => ({
      key: component.map(displayPath).join(', '),
      path: exampleCycle(graph, component).map(displayPath).join(' → '),
    }));
  });

  it('no package src has an import cycle', () => {
    expect(cycles.map(({ key, path }) => `${key} (e.g. ${path})`)).toEqual([]);
  });
});
