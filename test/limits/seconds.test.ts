// Durations as clients are told of them: rounding up to whole seconds, Retry-After of at least 1 s
// (RFC 9110 §10.2.3), and a bucket's reset as a Unix time and as seconds from now.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PLAN_LIMITS } from '../../src/limits/index.js';
import { bucketState } from '../../src/limits/key-decision.js';
import { failedAuthPolicies, keyPolicies } from '../../src/limits/policies.js';
import { ceilSeconds, retryAfterSeconds } from '../../src/limits/seconds.js';

test('durations round up to whole seconds, absorbing float noise', () => {
  assert.equal(ceilSeconds(0), 0);
  assert.equal(ceilSeconds(1), 1);
  assert.equal(ceilSeconds(1_000), 1);
  assert.equal(ceilSeconds(1_001), 2);
  assert.equal(ceilSeconds(60_000.000000001), 60);
  assert.equal(ceilSeconds(-5), 0);
});

test('Retry-After is whole seconds and at least 1', () => {
  assert.equal(retryAfterSeconds(0), 1);
  assert.equal(retryAfterSeconds(0.1), 1);
  assert.equal(retryAfterSeconds(1_500), 2);
  assert.equal(retryAfterSeconds(17_280_000), 17_280);
});

test('a reset is told as a Unix time in seconds and as seconds from now, each rounded up on its own', () => {
  assert.deepEqual(bucketState('minute', 60, 3, 100, 1_000_000_400), {
    policy: 'minute',
    limit: 60,
    remaining: 3,
    resetAtSeconds: 1_000_001,
    resetInSeconds: 1,
  });
  // 0.6 s from 1,000,000.5 s is 1,000,001.1 s: the Unix time rounds up to ...002, the wait to 1.
  const state = bucketState('day', 5, 0, 600, 1_000_000_500);
  assert.equal(state.resetAtSeconds, 1_000_002);
  assert.equal(state.resetInSeconds, 1);
});

test('a key has a minute and a day policy with the numbers of its plan; an address one failed-auth policy', () => {
  assert.deepEqual(keyPolicies(PLAN_LIMITS.free), [
    { name: 'minute', quota: 60, windowSeconds: 60 },
    { name: 'day', quota: 1000, windowSeconds: 86_400 },
  ]);
  assert.deepEqual(failedAuthPolicies(30, 60_000), [{ name: 'failed-auth', quota: 30, windowSeconds: 60 }]);
  assert.deepEqual(failedAuthPolicies(5, 1_500), [{ name: 'failed-auth', quota: 5, windowSeconds: 2 }]);
});
