// `animal-store/client` loads none of the server: following the imports that stay in the JavaScript
// (under verbatimModuleSyntax, only `import type` and `export type` are erased) from the client's
// entry point reaches the client's own files and the clock alone.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
// A static import or re-export of a relative path that is not type-only.
const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\s)[^'";]*?from\s+'(\.[^']+)'/gm;

/** The src files (relative to src/) that loading `entry` loads, `entry` included. */
function loadedFrom(entry: string): string[] {
  const loaded = new Set<string>();
  const pending = [resolve(SRC, entry)];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(VALUE_IMPORT)) {
      pending.push(resolve(dirname(file), (match[1] ?? '').replace(/\.js$/, '.ts')));
    }
  }
  return [...loaded].map((file) => relative(SRC, file)).sort();
}

test('the check follows value imports and skips type-only ones', () => {
  assert.ok(loadedFrom('client/client.ts').includes('client/transport.ts'));
  assert.ok(!loadedFrom('client/client.ts').includes('webhooks/schemas.ts'));
  assert.ok(loadedFrom('webhooks/schemas.ts').includes('events/event.ts'));
});

test('the client entry point loads the client and the clock, and nothing of the server', () => {
  assert.deepEqual(
    loadedFrom('client/index.ts').filter((file) => !file.startsWith('client/')),
    ['core/clock.ts'],
  );
});
