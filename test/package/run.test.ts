// The helper that runs the package's build steps: a step past its time ends as killed, also when a
// process it started still holds its output open (the build test waited forever on one such run).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { run } from './run.js';

test('a run past its time ends as killed (code null), even while a process it started holds the pipes', async () => {
  const startedMs = Date.now();
  // The shell's background sleep keeps stdout and stderr open after the shell itself is killed.
  const ran = await run('sh', ['-c', 'sleep 20 & sleep 20'], { timeoutMs: 300 });
  assert.equal(ran.code, null);
  assert.ok(Date.now() - startedMs < 10_000, `ended after ${Date.now() - startedMs} ms`);
});
