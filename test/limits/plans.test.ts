// Each plan's limits as README "Rate limits" gives them: the exact request that gets the first 429, the
// headers before and after it, and the continuous refill of the minute bucket.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { limitsOf, PLAN_LIMITS, MemoryLimiter } from '../../src/limits/index.js';
import { assertSaneHeaders, burst, headerListOf, headersOf, T0_MS, T0_S } from './helpers.js';

const FREE = PLAN_LIMITS.free;
const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';

test('the plans have the limits of README "Keys and plans"', () => {
  assert.deepEqual(PLAN_LIMITS, {
    free: { perMinute: 60, perDay: 1000 },
    pro: { perMinute: 300, perDay: 10000 },
    business: { perMinute: 1000, perDay: 100000 },
  });
  assert.deepEqual(limitsOf('enterprise', { perMinute: 5000, perDay: 2000000 }), { perMinute: 5000, perDay: 2000000 });
  assert.throws(() => limitsOf('enterprise'), TypeError);
});

test('a free key gets its 61st request within a minute refused with 429', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  const decisions = burst(limiter, 'k', FREE, 61);
  assert.deepEqual(
    decisions.slice(0, 60).map((d) => d.allowed),
    new Array<boolean>(60).fill(true),
  );
  const refused = decisions[60];
  assert.equal(refused?.allowed, false);
  assert.equal(refused?.refusal, 'rate_limited');
  assert.equal(refused?.retryAfterSeconds, 1);
});

test('a free key sees the exact headers on its 1st, 60th and 61st request', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  const decisions = burst(limiter, 'k', FREE, 61);
  assert.deepEqual(headerListOf(decisions[0]), [
    ['x-ratelimit-limit', '60'],
    ['x-ratelimit-remaining', '59'],
    ['x-ratelimit-reset', String(T0_S + 1)],
    ['ratelimit-policy', FREE_POLICY],
    ['ratelimit', '"minute";r=59;t=1'],
  ]);
  assert.deepEqual(headersOf(decisions[59]!), {
    'x-ratelimit-limit': '60',
    'x-ratelimit-remaining': '0',
    'x-ratelimit-reset': String(T0_S + 60),
    'ratelimit-policy': FREE_POLICY,
    ratelimit: '"minute";r=0;t=60',
  });
  assert.deepEqual(headerListOf(decisions[60]), [
    ['x-ratelimit-limit', '60'],
    ['x-ratelimit-remaining', '0'],
    ['x-ratelimit-reset', String(T0_S + 60)],
    ['ratelimit-policy', FREE_POLICY],
    ['ratelimit', '"minute";r=0;t=60'],
    ['retry-after', '1'],
  ]);
});

for (const plan of ['free', 'pro', 'business'] as const) {
  const limits = PLAN_LIMITS[plan];
  test(`a ${plan} key gets request ${limits.perMinute + 1} of a burst refused, and one more after ${60 / limits.perMinute} s`, () => {
    const clock = new ManualClock(T0_MS);
    const limiter = new MemoryLimiter(clock);
    const decisions = burst(limiter, plan, limits, limits.perMinute + 1);
    assert.equal(
      decisions.findIndex((d) => !d.allowed),
      limits.perMinute,
    );
    const last = decisions[limits.perMinute - 1]!;
    assert.equal(headersOf(last)['x-ratelimit-remaining'], '0');
    assert.equal(
      headersOf(last)['ratelimit-policy'],
      `"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`,
    );
    const refused = decisions[limits.perMinute]!;
    assert.equal(refused.refusal, 'rate_limited');
    assert.equal(headersOf(refused)['retry-after'], '1');
    assert.equal(headersOf(refused)['x-ratelimit-limit'], String(limits.perMinute));
    assert.equal(headersOf(refused)['x-ratelimit-reset'], String(T0_S + 60));

    // One token comes back every 60 / perMinute seconds (a rounded-up Retry-After of 1 s covers it).
    clock.advance(60_000 / limits.perMinute);
    assert.equal(limiter.admitKey(plan, limits).allowed, true);
    assert.equal(limiter.admitKey(plan, limits).allowed, false);
  });
}

test('a free key refills one request per second: after 10 s exactly 10 more are allowed', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 61);
  clock.advance(10_000);
  const decisions = burst(limiter, 'k', FREE, 11);
  assert.equal(
    decisions.findIndex((d) => !d.allowed),
    10,
  );
  assert.deepEqual(headersOf(decisions[0]!).ratelimit, '"minute";r=9;t=51');
});

test('a free key is full again 60 s after its burst', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 61);
  clock.advance(60_000);
  const decisions = burst(limiter, 'k', FREE, 61);
  assert.equal(
    decisions.findIndex((d) => !d.allowed),
    60,
  );
  assert.equal(headersOf(decisions[0]!)['x-ratelimit-remaining'], '59');
});

test('a free key sending one request per second, its refill rate, is never refused by the minute bucket', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  for (let i = 0; i < 600; i += 1) {
    const decision = limiter.admitKey('k', FREE);
    assert.equal(decision.allowed, true, `request ${i + 1}`);
    assert.equal(headersOf(decision)['x-ratelimit-remaining'], '59');
    clock.advance(1_000);
  }
});

test('a refused request takes no token', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { refusalsBeforeBan: 1_000 });
  burst(limiter, 'k', FREE, 60);
  burst(limiter, 'k', FREE, 500);
  clock.advance(1_000);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
});

test('the headers of every answer are whole, non-negative numbers', () => {
  const clock = new ManualClock(T0_MS + 123);
  const limiter = new MemoryLimiter(clock);
  for (let i = 0; i < 200; i += 1) {
    assertSaneHeaders(limiter.admitKey('k', FREE));
    clock.advance(337);
  }
});

test('keys have separate buckets', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  burst(limiter, 'a', FREE, 61);
  assert.equal(limiter.admitKey('b', FREE).allowed, true);
});

test('a forgotten key starts full again', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  burst(limiter, 'a', FREE, 61);
  limiter.forgetKey('a');
  assert.equal(limiter.sizes.keys, 0);
  assert.equal(headersOf(limiter.admitKey('a', FREE))['x-ratelimit-remaining'], '59');
});

test('limits that are not whole numbers of at least 1 are a programmer error', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  assert.throws(() => limiter.admitKey('k', { perMinute: 0, perDay: 10 }), TypeError);
  assert.throws(() => limiter.admitKey('k', { perMinute: 10, perDay: 1.5 }), TypeError);
  assert.throws(() => limiter.admitKey('k', { perMinute: Number.NaN, perDay: 10 }), TypeError);
});
