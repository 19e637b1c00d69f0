// Wall-clock steps (NTP corrections, an operator's date): refill and bans follow the monotonic clock,
// so a step neither creates nor destroys tokens nor moves a ban; only X-RateLimit-Reset moves with
// the wall clock (it is a wall time).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { PLAN_LIMITS, MemoryLimiter } from '../../src/limits/index.js';
import { assertSaneHeaders, burst, headersOf, T0_MS, T0_S } from './helpers.js';

const FREE = PLAN_LIMITS.free;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

test('a wall clock stepped back an hour creates no token and no negative or NaN header', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 60);
  const monotonicBefore = clock.monotonic();
  clock.stepWall(-HOUR_MS);
  assert.equal(clock.monotonic(), monotonicBefore);
  const refused = limiter.admitKey('k', FREE);
  assert.equal(refused.refusal, 'rate_limited');
  assert.equal(refused.retryAfterSeconds, 1);
  assertSaneHeaders(refused);
  assert.equal(headersOf(refused)['x-ratelimit-reset'], String(T0_S - 3_600 + 60));
  clock.advance(1_000);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
  assert.equal(limiter.admitKey('k', FREE).allowed, false);
});

test('a wall clock stepped forward a day creates no token: the minute and day buckets stay as they were', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 60);
  clock.stepWall(DAY_MS);
  const refused = limiter.admitKey('k', FREE);
  assert.equal(refused.refusal, 'rate_limited');
  assertSaneHeaders(refused);
  assert.equal(headersOf(refused)['x-ratelimit-reset'], String(T0_S + 86_400 + 60));
  const saved = limiter.exportState().days.find((d) => d.key === 'k');
  assert.equal(saved?.tokens, 940);
});

test('a wall clock stepped back mid-minute destroys no token', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 30);
  clock.stepWall(-HOUR_MS);
  const decisions = burst(limiter, 'k', FREE, 31);
  assert.equal(
    decisions.findIndex((d) => !d.allowed),
    30,
  );
  decisions.forEach(assertSaneHeaders);
});

test('a ban is neither lengthened by a wall step back nor ended by a wall step forward', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 91); // the 91st request is the 31st refusal
  clock.advance(100_000);
  clock.stepWall(DAY_MS);
  const forward = limiter.admitKey('k', FREE);
  assert.equal(forward.refusal, 'temporarily_banned');
  assert.equal(forward.retryAfterSeconds, 800);
  clock.stepWall(-DAY_MS - HOUR_MS);
  const back = limiter.admitKey('k', FREE);
  assert.equal(back.refusal, 'temporarily_banned');
  assert.equal(back.retryAfterSeconds, 800);
  assertSaneHeaders(back);
  clock.advance(800_000);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
});

test('the failed-auth bucket ignores wall-clock steps too', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  for (let i = 0; i < 30; i += 1) limiter.chargeFailedAuth('a');
  clock.stepWall(DAY_MS);
  assert.equal(limiter.checkAddress('a')?.retryAfterSeconds, 2);
  clock.stepWall(-DAY_MS - HOUR_MS);
  const refused = limiter.checkAddress('a');
  assert.equal(refused?.retryAfterSeconds, 2);
  if (refused !== undefined) assertSaneHeaders(refused);
});
