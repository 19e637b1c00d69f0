// The layers of src/, checked on the import graph: no import cycle, HTTP known only to the layers above
// it, and the service layer and HTTP code bound to the Store and Limiter interfaces, never to one of
// their implementations, so a second store or limiter plugs in without touching them.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
// Static imports and re-exports, type-only ones included, and dynamic imports of a literal path.
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

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

const graph = importGraph();

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
    target.startsWith('storage/');
  for (const [file, targets] of graph) {
    if (!/^(service|http|idempotency)\//.test(file)) continue;
    for (const target of targets) assert.ok(!implementation(target), `${file} imports ${target}`);
  }
});
