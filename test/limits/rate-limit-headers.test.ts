// Formatting of the rate-limit fields: rounding to whole seconds, Retry-After of at least 1 s
// (RFC 9110 §10.2.3), and the policy strings of draft-ietf-httpapi-ratelimit-headers.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { PLAN_LIMITS } from '../../src/limits/index.js';
import {
  ceilSeconds,
  failedAuthPolicy,
  integerText,
  keyPolicy,
  rateLimitHeaders,
  retryAfterSeconds,
} from '../../src/limits/rate-limit-headers.js';

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

test('RateLimit-Policy names both buckets of a key with the numbers of its plan', () => {
  assert.equal(keyPolicy(PLAN_LIMITS.free), '"minute";q=60;w=60, "day";q=1000;w=86400');
  assert.equal(keyPolicy(PLAN_LIMITS.pro), '"minute";q=300;w=60, "day";q=10000;w=86400');
  assert.equal(keyPolicy(PLAN_LIMITS.business), '"minute";q=1000;w=60, "day";q=100000;w=86400');
  assert.equal(failedAuthPolicy(30, 60_000), '"failed-auth";q=30;w=60');
  assert.equal(failedAuthPolicy(5, 1_500), '"failed-auth";q=5;w=2');
});

test('X-RateLimit-Reset is a Unix time in seconds, rounded up', () => {
  const headers = Object.fromEntries(
    rateLimitHeaders({ policyName: 'minute', limit: 60, remaining: 3, resetInMs: 100 }, 'p', 1_000_000_400),
  );
  assert.equal(headers['x-ratelimit-reset'], '1000001');
  assert.equal(headers.ratelimit, '"minute";r=3;t=1');
  assert.equal(headers['retry-after'], undefined);
});

test('a whole number is written as String writes it, small or large', () => {
  for (const n of [
    0,
    1,
    2 ** 31 - 1,
    2 ** 31,
    999_999_999_999,
    1e12,
    1_000_000_000_007,
    Number.MAX_SAFE_INTEGER,
    2 ** 53,
    1e21,
    0.5,
  ])
    assert.equal(integerText(n), String(n), String(n));
  fc.assert(
    fc.property(fc.maxSafeNat(), (n) => integerText(n) === String(n)),
    { numRuns: 20000 },
  );
});
