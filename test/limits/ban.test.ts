// The temporary ban of README "Rate limits": the 31st refusal of a key within 60 s is still answered
// rate_limited and starts a 15-minute ban; from the next request on every request of the key gets
// temporarily_banned, with Retry-After = seconds left, Remaining 0 and Reset = the ban's end.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { PLAN_LIMITS, MemoryLimiter } from '../../src/limits/index.js';
import { assertSaneHeaders, burst, headerListOf, headersOf, T0_MS, T0_S } from './helpers.js';

const FREE = PLAN_LIMITS.free;
const FREE_POLICY = '"minute";q=60;w=60, "day";q=1000;w=86400';

/** A free key that has spent its minute bucket and then been refused `refusals` times, all at T0. */
function refusedKey(refusals: number): { clock: ManualClock; limiter: MemoryLimiter } {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 60 + refusals);
  return { clock, limiter };
}

test('a key refused 30 times within 60 s is not banned', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  const decisions = burst(limiter, 'k', FREE, 90);
  for (const decision of decisions.slice(60)) {
    assert.equal(decision.refusal, 'rate_limited');
    assert.equal(decision.retryAfterSeconds, 1);
  }
  clock.advance(1_000);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
});

test('the 31st refusal within 60 s is answered rate_limited and starts a 15-minute ban', () => {
  const { limiter } = refusedKey(30);
  const starting = limiter.admitKey('k', FREE);
  assert.equal(starting.allowed, false);
  assert.equal(starting.refusal, 'rate_limited');
  // Its Retry-After says when the next request would succeed: at the ban's end. Its other fields are
  // those of any refusal (the ban's own come "from the next request on"): the minute bucket, full in 60 s.
  assert.deepEqual(headerListOf(starting), [
    ['x-ratelimit-limit', '60'],
    ['x-ratelimit-remaining', '0'],
    ['x-ratelimit-reset', String(T0_S + 60)],
    ['ratelimit-policy', FREE_POLICY],
    ['ratelimit', '"minute";r=0;t=60'],
    ['retry-after', '900'],
  ]);
});

test('from the next request on, a banned key gets temporarily_banned with the seconds left', () => {
  const { clock, limiter } = refusedKey(31);
  const banned = limiter.admitKey('k', FREE);
  assert.equal(banned.refusal, 'temporarily_banned');
  assert.equal(banned.retryAfterSeconds, 900);
  assert.deepEqual(headerListOf(banned), [
    ['x-ratelimit-limit', '60'],
    ['x-ratelimit-remaining', '0'],
    ['x-ratelimit-reset', String(T0_S + 900)],
    ['ratelimit-policy', FREE_POLICY],
    ['ratelimit', '"minute";r=0;t=900'],
    ['retry-after', '900'],
  ]);
  // The minute bucket is full again after 60 s, but the ban holds.
  clock.advance(120_000);
  const later = limiter.admitKey('k', FREE);
  assert.equal(later.refusal, 'temporarily_banned');
  assert.equal(later.retryAfterSeconds, 780);
  assertSaneHeaders(later);
});

test('requests during a ban do not extend it, and it ends at its end', () => {
  const { clock, limiter } = refusedKey(31);
  for (let second = 0; second < 900; second += 1) {
    const decision = limiter.admitKey('k', FREE);
    assert.equal(decision.refusal, 'temporarily_banned', `second ${second}`);
    assert.equal(decision.retryAfterSeconds, 900 - second);
    assert.equal(headersOf(decision)['x-ratelimit-reset'], String(T0_S + 900));
    clock.advance(1_000);
  }
  const after = limiter.admitKey('k', FREE);
  assert.equal(after.allowed, true);
  assert.equal(headersOf(after)['x-ratelimit-remaining'], '59');
});

test('the last second of a ban rounds up to Retry-After: 1', () => {
  const { clock, limiter } = refusedKey(31);
  clock.advance(900_000 - 1);
  const decision = limiter.admitKey('k', FREE);
  assert.equal(decision.refusal, 'temporarily_banned');
  assert.equal(decision.retryAfterSeconds, 1);
  clock.advance(1);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
});

test('requests during a ban take no tokens', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { refusalsBeforeBan: 0, banMs: 10_000 });
  const limits = { perMinute: 1, perDay: 1000 };
  burst(limiter, 'k', limits, 2); // 1 allowed, then the first refusal bans
  const dayTokensAt = (): number => limiter.exportState().days.find((d) => d.key === 'k')?.tokens ?? Number.NaN;
  const before = dayTokensAt();
  burst(limiter, 'k', limits, 1_000);
  assert.equal(dayTokensAt(), before);
  clock.advance(60_000);
  assert.equal(limiter.admitKey('k', limits).allowed, true);
});

test('after a ban, refusals are counted afresh: the refusals that started it do not count again', () => {
  const clock = new ManualClock(T0_MS);
  // A ban shorter than the refusal window, so the refusals that started it are still in the window.
  const limiter = new MemoryLimiter(clock, { refusalsBeforeBan: 2, refusalWindowMs: 60_000, banMs: 5_000 });
  const limits = { perMinute: 1, perDay: 10_000 };
  burst(limiter, 'k', limits, 4); // 1 allowed, 3 refusals: the third starts the ban
  assert.equal(limiter.admitKey('k', limits).refusal, 'temporarily_banned');
  clock.advance(5_000);
  const after = burst(limiter, 'k', limits, 3);
  assert.deepEqual(
    after.map((d) => [d.refusal, d.retryAfterSeconds]),
    [
      ['rate_limited', 55],
      ['rate_limited', 55],
      // It starts a 5 s ban, but the next request succeeds only with a token back, in 55 s: the later of the two.
      ['rate_limited', 55],
    ],
  );
});

test('refusals counted over a sliding window: 31 refusals straddling a minute boundary start a ban', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  const limits = { perMinute: 1, perDay: 10_000 };
  limiter.admitKey('k', limits);
  clock.advance(30_000);
  burst(limiter, 'k', limits, 30); // 30 refusals at 30 s
  clock.advance(29_000);
  const thirtyFirst = limiter.admitKey('k', limits); // at 59 s: 31 refusals within 29 s
  assert.equal(thirtyFirst.refusal, 'rate_limited');
  assert.equal(thirtyFirst.retryAfterSeconds, 900);
  assert.equal(limiter.admitKey('k', limits).refusal, 'temporarily_banned');
});

test('refusals older than the window do not count towards a ban', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  burst(limiter, 'k', FREE, 90); // 30 refusals at T0
  clock.advance(60_000);
  const decisions = burst(limiter, 'k', FREE, 90); // full again, 60 allowed, 30 refusals
  assert.ok(decisions.slice(60).every((d) => d.refusal === 'rate_limited' && d.retryAfterSeconds === 1));
  assert.equal(limiter.admitKey('k', FREE).retryAfterSeconds, 900);
});

test('a key refused once every 3 s (20 per minute) is never banned', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  const limits = { perMinute: 1, perDay: 10_000 };
  for (let i = 0; i < 400; i += 1) {
    assert.notEqual(limiter.admitKey('k', limits).refusal, 'temporarily_banned');
    clock.advance(3_000);
  }
});

test('the refusal count and the ban length are configurable', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { refusalsBeforeBan: 2, refusalWindowMs: 10_000, banMs: 5_000 });
  const decisions = burst(limiter, 'k', FREE, 64);
  assert.deepEqual(
    decisions.slice(60).map((d) => [d.refusal, d.retryAfterSeconds]),
    [
      ['rate_limited', 1],
      ['rate_limited', 1],
      ['rate_limited', 5],
      ['temporarily_banned', 5],
    ],
  );
  clock.advance(5_000);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
});

test('a ban of one key leaves other keys alone', () => {
  const { limiter } = refusedKey(32);
  assert.equal(limiter.admitKey('other', FREE).allowed, true);
});

test("a ban that starts while the day bucket is empty: the starting refusal waits for the later of the ban's end and a token", () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  const limits = { perMinute: 1000, perDay: 2 };
  burst(limiter, 'k', limits, 32); // 2 allowed, 30 refusals
  const starting = limiter.admitKey('k', limits);
  assert.equal(starting.refusal, 'rate_limited');
  // One day token comes back every 43,200 s: long after the 900 s ban.
  assert.equal(starting.retryAfterSeconds, 43_200);
  assert.equal(headersOf(starting).ratelimit, '"day";r=0;t=86400');
  const banned = limiter.admitKey('k', limits);
  assert.equal(banned.refusal, 'temporarily_banned');
  assert.equal(banned.retryAfterSeconds, 900, 'during the ban: its seconds left');
  clock.advance(900_000);
  const after = limiter.admitKey('k', limits);
  assert.equal(after.refusal, 'rate_limited');
  assert.equal(after.retryAfterSeconds, 42_300);
});
