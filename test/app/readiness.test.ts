// The readiness check: a failing part is named to the client without its cause, and logged once per outage.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readinessCheck } from '../../src/app/readiness.js';

test('a part that cannot take work is named without its cause, which is logged once when it fails and once when it is back', async () => {
  let cause: string | undefined = 'connect ECONNREFUSED 10.1.2.3:5432';
  const logged: string[] = [];
  const check = readinessCheck(
    [
      {
        name: 'the store',
        ping: async () => {
          if (cause !== undefined) throw new Error(cause);
        },
      },
      { name: 'the rate limiter', ping: async () => {} },
    ],
    (line) => logged.push(line),
  );
  for (let probe = 0; probe < 3; probe++) {
    await assert.rejects(check(), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal(error.message, 'the store cannot take work now; retry shortly');
      assert.doesNotMatch(error.message, /10\.1\.2\.3|ECONNREFUSED/);
      return true;
    });
  }
  assert.deepEqual(logged, ['not ready: the store cannot take work: connect ECONNREFUSED 10.1.2.3:5432']);
  cause = undefined;
  await check();
  await check();
  assert.deepEqual(logged.slice(1), ['ready again: the store takes work']);
});
