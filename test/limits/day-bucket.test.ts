// The day bucket (README "Rate limits": per-day limit refilled continuously over 86,400 s), and the rule
// that the headers describe whichever bucket has fewer tokens left.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { PLAN_LIMITS, MemoryLimiter } from '../../src/limits/index.js';
import { burst, headerListOf, headersOf, T0_MS, T0_S } from './helpers.js';

const SMALL_DAY = { perMinute: 100, perDay: 5 };
const SMALL_DAY_POLICY = '"minute";q=100;w=60, "day";q=5;w=86400';

test('an enterprise key with 100/min and 5/day gets its 6th request refused by the day bucket', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  const decisions = burst(limiter, 'e', SMALL_DAY, 6);
  assert.equal(
    decisions.findIndex((d) => !d.allowed),
    5,
  );
  // One day token comes back every 86,400 / 5 = 17,280 s.
  assert.deepEqual(headerListOf(decisions[0]), [
    ['x-ratelimit-limit', '5'],
    ['x-ratelimit-remaining', '4'],
    ['x-ratelimit-reset', String(T0_S + 17_280)],
    ['ratelimit-policy', SMALL_DAY_POLICY],
    ['ratelimit', '"day";r=4;t=17280'],
  ]);
  assert.equal(decisions[5]?.refusal, 'rate_limited');
  assert.deepEqual(headerListOf(decisions[5]), [
    ['x-ratelimit-limit', '5'],
    ['x-ratelimit-remaining', '0'],
    ['x-ratelimit-reset', String(T0_S + 86_400)],
    ['ratelimit-policy', SMALL_DAY_POLICY],
    ['ratelimit', '"day";r=0;t=86400'],
    ['retry-after', '17280'],
  ]);
});

test('a day-limited key gets one request back 17,280 s later, not after a minute', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'e', SMALL_DAY, 6);
  clock.advance(60_000);
  assert.equal(limiter.admitKey('e', SMALL_DAY).refusal, 'rate_limited');
  clock.advance(17_280_000 - 60_000 - 1);
  assert.equal(limiter.admitKey('e', SMALL_DAY).allowed, false);
  clock.advance(1);
  assert.equal(limiter.admitKey('e', SMALL_DAY).allowed, true);
  assert.equal(limiter.admitKey('e', SMALL_DAY).allowed, false);
});

test('the headers switch from the minute to the day bucket once the day bucket has fewer tokens left', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  const limits = { perMinute: 10, perDay: 12 };
  const decisions = burst(limiter, 'e', limits, 10);
  // After n requests: minute 10 - n, day 12 - n; the minute bucket has fewer.
  assert.equal(headersOf(decisions[0]!).ratelimit, '"minute";r=9;t=6');
  assert.equal(headersOf(decisions[9]!).ratelimit, '"minute";r=0;t=60');
  // A minute later the minute bucket is full (10) and the day bucket barely refilled (2.008).
  clock.advance(60_000);
  const next = limiter.admitKey('e', limits);
  assert.equal(headersOf(next)['x-ratelimit-limit'], '12');
  assert.equal(headersOf(next)['x-ratelimit-remaining'], '1');
  assert.match(headersOf(next).ratelimit ?? '', /^"day";r=1;t=/);
});

test('with exactly equal tokens left the headers show the bucket that is full again later', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  const [first] = burst(limiter, 'e', { perMinute: 5, perDay: 5 }, 1);
  assert.equal(headersOf(first!).ratelimit, '"day";r=4;t=17280');
  assert.equal(headersOf(first!)['x-ratelimit-limit'], '5');
});

test('fewer tokens left is compared with fractions: 4.0 minute tokens against 4.005 day tokens shows the minute bucket', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  const limits = { perMinute: 10, perDay: 15 };
  burst(limiter, 'e', limits, 10);
  clock.advance(30_000); // the minute bucket gets 5 tokens back, the day bucket 5 / 86,400 × 30 × 15 ≈ 0.005
  const next = limiter.admitKey('e', limits);
  assert.equal(headersOf(next)['x-ratelimit-limit'], '10');
  assert.equal(headersOf(next)['x-ratelimit-remaining'], '4');
  assert.equal(headersOf(next).ratelimit, '"minute";r=4;t=36');
});

test('a free key sending one request per second is refused by its day bucket after about 1,011 requests', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  let count = 0;
  for (;;) {
    const decision = limiter.admitKey('k', PLAN_LIMITS.free);
    if (!decision.allowed) {
      const headers = headersOf(decision);
      assert.equal(decision.refusal, 'rate_limited');
      assert.equal(headers['x-ratelimit-limit'], '1000');
      assert.match(headers.ratelimit ?? '', /^"day";r=0;t=/);
      // A day token comes back every 86.4 s, so the wait is at most 87 s.
      assert.ok(
        decision.retryAfterSeconds !== undefined && decision.retryAfterSeconds >= 1 && decision.retryAfterSeconds <= 87,
      );
      break;
    }
    count += 1;
    clock.advance(1_000);
  }
  // 1,000 tokens plus the refill of 1,000/86,400 per second for the time spent: 1000 / (1 - 1000/86400).
  assert.equal(count, 1011);
});

test('a refusal by the minute bucket has Retry-After no later than X-RateLimit-Reset', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { refusalsBeforeBan: 1_000 });
  const limits = { perMinute: 3, perDay: 4 };
  for (let step = 0; step < 400; step += 1) {
    const decision = limiter.admitKey('k', limits);
    if (!decision.allowed) {
      const headers = headersOf(decision);
      const resetInSeconds = Number(headers['x-ratelimit-reset']) - Math.floor(clock.now() / 1000);
      assert.ok((decision.retryAfterSeconds ?? 0) <= resetInSeconds, `step ${step}: ${JSON.stringify(headers)}`);
    }
    clock.advance(7_919);
  }
});

test('a refund gives one token back to both buckets, never beyond capacity, and is a no-op for an unseen key', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'r', SMALL_DAY, 5);
  limiter.refundKey('r', SMALL_DAY);
  limiter.refundKey('r', SMALL_DAY);
  const [sixth, seventh, eighth] = burst(limiter, 'r', SMALL_DAY, 3);
  assert.equal(sixth?.allowed, true);
  assert.equal(seventh?.allowed, true);
  assert.equal(eighth?.allowed, false, 'two refunds, two more requests');
  const fresh = new MemoryLimiter(clock);
  fresh.refundKey('never-seen', SMALL_DAY);
  burst(fresh, 'full', SMALL_DAY, 1);
  fresh.refundKey('full', SMALL_DAY);
  fresh.refundKey('full', SMALL_DAY);
  assert.equal(
    headersOf(fresh.admitKey('full', SMALL_DAY))['x-ratelimit-remaining'],
    '4',
    'capped at the capacity of 5',
  );
  assert.equal(fresh.sizes.keys, 1, 'a refund creates no state');
});
