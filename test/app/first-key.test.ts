// A first key is never a silent surprise: created when no key is configured, announced with a warning
// (without the secret) unless the program asked for it, and not created when it asks for none.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AnimalStoreOptions, createAnimalStore } from '../../src/app/create-animal-store.js';
import { createLogger } from '../../src/logging/logger.js';

function collectingLogger(): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return { lines, logger: createLogger({ level: 'warn', write: (line) => lines.push(line) }) };
}

test('with no key configured, the first key is created and a warning says where it is, never what it is', async () => {
  const { lines, logger } = collectingLogger();
  const app = await createAnimalStore({ logger });
  try {
    assert.match(app.firstKey ?? '', /^ask_/);
    assert.equal(lines.length, 1);
    assert.match(lines[0] ?? '', /first key \(free plan\) was created; its secret is in app\.firstKey/);
    assert.ok(!(lines[0] ?? '').includes(app.firstKey ?? 'none'), 'the secret is not logged');
  } finally {
    await app.close();
  }
});

test('createFirstKey: true creates it quietly; false creates none; configured keys need none', async () => {
  const cases: [AnimalStoreOptions, boolean][] = [
    [{ createFirstKey: true }, true],
    [{ createFirstKey: false }, false],
    [{ keys: [{ key: 'a-configured-key-0123456789', plan: 'pro' }] }, false],
  ];
  for (const [options, expectKey] of cases) {
    const { lines, logger } = collectingLogger();
    const app = await createAnimalStore({ ...options, logger });
    try {
      assert.equal(app.firstKey !== undefined, expectKey, JSON.stringify(options));
      assert.deepEqual(lines, [], JSON.stringify(options));
    } finally {
      await app.close();
    }
  }
});
