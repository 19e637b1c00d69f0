// The layers of src/, checked on the import graph: no import cycle, HTTP known only to the layers above
// it, the service layer and HTTP code bound to the Store and Limiter interfaces, never to one of their
// implementations, so a second store or limiter plugs in without touching them, and the choice of
// backend made in src/app/ alone: the command line asks src/app/ for what it needs.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
// Static imports and re-exports, type-only ones included, and dynamic imports of a literal path.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;
// The same, of a package: `pg`, `ioredis/built/…`, `node:fs`.
const PACKAGE_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'([^.'][^']*)'|import\(\s*'([^.'][^']*)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every src file (relative to src/, with .ts) and the src files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? '';
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (target.startsWith(SRC)) targets.push(relative(SRC, target));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** Every src file and the packages it imports, by name (`pg`, `ioredis`, `node:fs`). */
function packageImports(): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const names = [...readFileSync(file, 'utf8').matchAll(PACKAGE_IMPORT)].map((match) => {
      const specifier = match[1] ?? match[2] ?? '';
      const [scopeOrName = '', name] = specifier.split('/');
      return scopeOrName.startsWith('@') && name !== undefined ? `${scopeOrName}/${name}` : scopeOrName;
    });
    packages.set(relative(SRC, file), names);
  }
  return packages;
}

const graph = importGraph();
const packages = packageImports();

test('the import graph of src/ is read whole (every import resolves to a file)', () => {
  assert.ok(graph.size > 50, `only ${graph.size} files found`);
  for (const [file, targets] of graph) {
    for (const target of targets)
      assert.ok(graph.has(target), `${file} imports ${target}, which is not a file of src/`);
  }
});

/** A cycle of `graph` as a list of files (the first repeated at the end), or undefined when there is none. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]): string[] | undefined => {
    if (state.get(file) === 'done') return undefined;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    for (const target of graph.get(file) ?? []) {
      const cycle = visit(target, [...path, file]);
      if (cycle !== undefined) return cycle;
    }
    state.set(file, 'done');
    return undefined;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file, []);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

test('src/ has no import cycle (and the check finds one where there is one)', () => {
  const looped = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  assert.deepEqual(findCycle(looped), ['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  assert.equal(
    findCycle(
      new Map([
        ['a.ts', ['b.ts']],
        ['b.ts', []],
      ]),
    ),
    undefined,
  );
  const cycle = findCycle(graph);
  assert.equal(cycle, undefined, `import cycle: ${cycle?.join(' → ')}`);
});

test('only the layers above HTTP import http/', () => {
  // metrics/ is an outer edge like app/: it implements what the dispatcher reports (http/request-observer.ts).
  const above = (file: string) => /^(http|app|cli|metrics)\//.test(file) || file === 'index.ts';
  for (const [file, targets] of graph) {
    if (above(file)) continue;
    for (const target of targets) assert.ok(!target.startsWith('http/'), `${file} imports ${target}`);
  }
});

test('the service layer and HTTP know the Store and Limiter interfaces, not an implementation', () => {
  const implementation = (target: string) =>
    (target.startsWith('store/') && target !== 'store/store.ts') ||
    target === 'limits/memory-limiter.ts' ||
    target.startsWith('limits/redis') ||
    target.startsWith('journal/');
  for (const [file, targets] of graph) {
    if (!/^(service|http|idempotency)\//.test(file)) continue;
    for (const target of targets) assert.ok(!implementation(target), `${file} imports ${target}`);
  }
});

/** The code of one backend: a store, or the limiter shared through Redis. */
const backend = (target: string) =>
  target.startsWith('store/embedded/') || target.startsWith('store/postgres/') || target.startsWith('limits/redis/');
/** The drivers of the shared backends, and the folder each belongs to. */
const DRIVERS: Readonly<Record<string, string>> = { pg: 'store/postgres/', ioredis: 'limits/redis/' };
const isDriver = (name: string) => Object.hasOwn(DRIVERS, name);

test('the import checks see package imports too (each driver is found where its backend is)', () => {
  assert.ok(packages.get('store/postgres/open-postgres-store.ts')?.includes('pg'));
  assert.ok(
    [...packages].some(([file, names]) => file.startsWith('limits/redis/') && names.includes('ioredis')),
    'ioredis is imported in limits/redis/',
  );
});

test('the command line chooses no backend: nothing in cli/ imports store/, journal/, the Redis limiter or a driver', () => {
  const cli = (file: string) => file.startsWith('cli/') || file === 'cli.ts';
  assert.ok([...graph.keys()].filter(cli).length >= 5, 'the files of cli/ are found');
  for (const [file, targets] of graph) {
    if (!cli(file)) continue;
    for (const target of targets) {
      const chooses = target.startsWith('store/') || target.startsWith('journal/') || backend(target);
      assert.ok(!chooses, `${file} imports ${target}; the command line asks src/app/ instead`);
    }
    for (const name of packages.get(file) ?? [])
      assert.ok(!isDriver(name), `${file} imports ${name}; the command line asks src/app/ instead`);
  }
});

test('only app/ opens a backend: outside app/, a backend is imported by its own folder alone, a driver by its backend', () => {
  const folderOf = (file: string) => file.split('/').slice(0, 2).join('/');
  for (const [file, targets] of graph) {
    if (file.startsWith('app/')) continue;
    for (const target of targets) {
      assert.ok(
        !backend(target) || folderOf(target) === folderOf(file),
        `${file} imports ${target}: only src/app/ chooses and opens a backend`,
      );
    }
  }
  for (const [file, names] of packages) {
    for (const name of names.filter(isDriver)) {
      const own = DRIVERS[name] as string;
      assert.ok(file.startsWith(own), `${file} imports ${name}, the driver of ${own}`);
    }
  }
});

test('a folder with an index.ts is imported from outside through it alone (its sub-folders are folders of their own)', () => {
  const folders = [...graph.keys()].filter((file) => file.endsWith('/index.ts')).map((file) => dirname(file));
  assert.ok(folders.includes('limits'), 'the index of limits/ is found');
  for (const [file, targets] of graph) {
    for (const target of targets) {
      const folder = dirname(target);
      if (!folders.includes(folder) || `${dirname(file)}/`.startsWith(`${folder}/`)) continue;
      assert.equal(target, `${folder}/index.ts`, `${file} imports ${target}, past ${folder}/index.ts`);
    }
  }
});
