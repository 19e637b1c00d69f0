// What the backends a configuration names mean, as the command line is told them: the same choice that
// openStore and openLimiter make, and where the data is without ever showing a database password.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { describeBackends } from '../../src/app/describe-backends.js';

test('a database URL means a shared store kept outside the data directory; a Redis URL, shared limits', () => {
  assert.deepEqual(
    describeBackends({ databaseUrl: 'postgres://animals:secret@db.internal:6543/zoo', redisUrl: 'redis://r' }),
    {
      sharedStore: true,
      sharedLimits: true,
      storeInDataDir: false,
      durable: true,
      dataPlace: 'PostgreSQL at postgres://db.internal:6543/zoo',
    },
  );
  assert.doesNotMatch(describeBackends({ databaseUrl: 'postgres://animals:secret@db/zoo' }).dataPlace, /secret/);
});

test('without one, the embedded store: in the data directory (named in full) or in memory', () => {
  assert.deepEqual(describeBackends({ dataDir: './data' }), {
    sharedStore: false,
    sharedLimits: false,
    storeInDataDir: true,
    durable: true,
    dataPlace: resolve('./data'),
  });
  assert.deepEqual(describeBackends({}), {
    sharedStore: false,
    sharedLimits: false,
    storeInDataDir: true,
    durable: false,
    dataPlace: 'memory',
  });
});
