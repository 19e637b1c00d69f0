// The rate-limit header fields rendered from the limiter's numbers (README "Rate limits"): the
// X-RateLimit-* fields, RateLimit-Policy and RateLimit of draft-ietf-httpapi-ratelimit-headers, and
// Retry-After on refusals; the same text whatever was rendered before it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { integerText, policyText, setRateLimitHeaders } from '../../src/http/rate-limit-headers.js';
import { ResponseHeaders } from '../../src/http/response-headers.js';
import { type Decision, PLAN_LIMITS } from '../../src/limits/index.js';
import { failedAuthPolicies, keyPolicies } from '../../src/limits/policies.js';

/** The fields `decision` is rendered as, without the X-Request-Id every answer has. */
function rendered(decision: Decision): string[] {
  const headers = new ResponseHeaders('id');
  setRateLimitHeaders(headers, decision);
  return headers.list.slice(2);
}

test('keys with the same limits share one policies array, so its text is formed once', () => {
  assert.equal(keyPolicies({ perMinute: 60, perDay: 1000 }), keyPolicies(PLAN_LIMITS.free));
  assert.notEqual(keyPolicies(PLAN_LIMITS.pro), keyPolicies(PLAN_LIMITS.free));
});

test('RateLimit-Policy names both buckets of a key with the numbers of its plan', () => {
  assert.equal(policyText(keyPolicies(PLAN_LIMITS.free)), '"minute";q=60;w=60, "day";q=1000;w=86400');
  assert.equal(policyText(keyPolicies(PLAN_LIMITS.pro)), '"minute";q=300;w=60, "day";q=10000;w=86400');
  assert.equal(policyText(keyPolicies(PLAN_LIMITS.business)), '"minute";q=1000;w=60, "day";q=100000;w=86400');
  assert.equal(policyText(failedAuthPolicies(30, 60_000)), '"failed-auth";q=30;w=60');
  assert.equal(policyText(failedAuthPolicies(5, 1_500)), '"failed-auth";q=5;w=2');
});

test('an admitted request gets the five fields of its bucket, in this order, and no Retry-After', () => {
  const decision: Decision = {
    allowed: true,
    bucket: { policy: 'minute', limit: 60, remaining: 3, resetAtSeconds: 1_000_001, resetInSeconds: 1 },
    policies: keyPolicies(PLAN_LIMITS.free),
  };
  assert.deepEqual(rendered(decision), [
    'x-ratelimit-limit',
    '60',
    'x-ratelimit-remaining',
    '3',
    'x-ratelimit-reset',
    '1000001',
    'ratelimit-policy',
    '"minute";q=60;w=60, "day";q=1000;w=86400',
    'ratelimit',
    '"minute";r=3;t=1',
  ]);
});

test('a refusal adds Retry-After; a limiter that could not be asked tells nothing', () => {
  const refusal: Decision = {
    allowed: false,
    refusal: 'temporarily_banned',
    retryAfterSeconds: 900,
    bucket: { policy: 'day', limit: 1000, remaining: 0, resetAtSeconds: 1_800_000_900, resetInSeconds: 900 },
    policies: keyPolicies(PLAN_LIMITS.free),
  };
  assert.deepEqual(rendered(refusal).slice(-4), ['ratelimit', '"day";r=0;t=900', 'retry-after', '900']);
  assert.deepEqual(rendered({ allowed: true, policies: [] }), []);
});

test('what is kept from one answer to the next never leaks into an answer with other numbers', () => {
  const free = keyPolicies(PLAN_LIMITS.free);
  const enterprise = keyPolicies({ perMinute: 1e12, perDay: 2e12 });
  const cases: Array<[Decision, string[]]> = [
    [
      {
        allowed: true,
        bucket: { policy: 'minute', limit: 60, remaining: 59, resetAtSeconds: 1_900_000_001, resetInSeconds: 1 },
        policies: free,
      },
      ['60', '59', '1900000001', '"minute";q=60;w=60, "day";q=1000;w=86400', '"minute";r=59;t=1'],
    ],
    [
      {
        allowed: true,
        bucket: {
          policy: 'minute',
          limit: 1e12,
          remaining: 1e12 - 1,
          resetAtSeconds: 1_900_000_002,
          resetInSeconds: 1,
        },
        policies: enterprise,
      },
      [
        '1000000000000',
        '999999999999',
        '1900000002',
        '"minute";q=1000000000000;w=60, "day";q=2000000000000;w=86400',
        '"minute";r=999999999999;t=1',
      ],
    ],
  ];
  // Alternately, and again with policies equal in value but not the same array.
  for (const [decision, values] of [
    ...cases,
    ...cases,
    [
      {
        ...cases[0]![0],
        policies: [
          { name: 'minute', quota: 60, windowSeconds: 60 },
          { name: 'day', quota: 1000, windowSeconds: 86_400 },
        ],
      },
      cases[0]![1],
    ] as const,
  ]) {
    const list = rendered(decision);
    assert.deepEqual(
      list.filter((_, index) => index % 2 === 1),
      values,
    );
  }
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
