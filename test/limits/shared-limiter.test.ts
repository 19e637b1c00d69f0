// One suite, two limiters: the same calls at the same instants to the in-memory limiter and to the
// Redis limiter (a real Redis, its scripts given the test's clock instead of Redis's), and the same
// decisions back, with every number the headers are rendered from: buckets, refusals, the ban and its
// end, refunds, forgetting, the failed-authentication bucket. Then what only Redis has: every key it
// writes expires once it no longer matters.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { type Decision, type Limiter, MemoryLimiter, PLAN_LIMITS } from '../../src/limits/index.js';
import { openRedisLimiter } from '../../src/limits/redis/open-redis-limiter.js';
import type { RedisLimiter } from '../../src/limits/redis/redis-limiter.js';
import { freshPrefix, keysUnder, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';
import { T0_MS } from './helpers.js';

const skip = await redisSkipReason();
const FREE = PLAN_LIMITS.free;
const PRO = PLAN_LIMITS.pro;
const opened: Limiter[] = [];
after(async () => {
  for (const limiter of opened) await limiter.close();
});

/** Both limiters on one clock, with the same options. */
async function pair(limits?: ConstructorParameters<typeof MemoryLimiter>[1]) {
  const clock = new ManualClock(T0_MS);
  const memory = new MemoryLimiter(clock, limits);
  const prefix = freshPrefix();
  const redis = await openRedisLimiter({
    redisUrl: TEST_REDIS_URL,
    prefix,
    unavailable: 'closed',
    limits,
    warn: () => {},
    time: () => clock.now(),
  });
  opened.push(redis);
  return { clock, memory, redis, prefix };
}

/** Calls both and asserts they decide alike; returns the decision. */
async function both(
  limiters: { memory: Limiter; redis: Limiter },
  call: (limiter: Limiter) => Decision | undefined | Promise<Decision | undefined>,
  label: string,
): Promise<Decision | undefined> {
  const fromMemory = await call(limiters.memory);
  const fromRedis = await call(limiters.redis);
  assert.deepEqual(fromRedis, fromMemory, label);
  return fromMemory;
}

test('keys: buckets, refusals, the ban and its end decide alike in memory and in Redis', { skip }, async () => {
  const limiters = await pair();
  const { clock } = limiters;
  for (let i = 0; i < 60; i++)
    assert.equal((await both(limiters, (l) => l.admitKey('k', FREE), `request ${i + 1}`))?.allowed, true);
  const refused = await both(limiters, (l) => l.admitKey('k', FREE), 'the 61st');
  assert.equal(refused?.refusal, 'rate_limited');
  assert.equal(refused?.retryAfterSeconds, 1);
  clock.advance(1000);
  assert.equal((await both(limiters, (l) => l.admitKey('k', FREE), 'a second later'))?.allowed, true);
  // 30 refusals are tolerated; the 31st within 60 s starts a ban, and is still a plain refusal.
  for (let i = 0; i < 29; i++) await both(limiters, (l) => l.admitKey('k', FREE), `refusal ${i + 2}`);
  const last = await both(limiters, (l) => l.admitKey('k', FREE), 'the 31st refusal');
  assert.equal(last?.refusal, 'rate_limited');
  assert.equal(last?.retryAfterSeconds, 900);
  const banned = await both(limiters, (l) => l.admitKey('k', FREE), 'banned');
  assert.equal(banned?.refusal, 'temporarily_banned');
  clock.advance(899_000);
  await both(limiters, (l) => l.admitKey('k', FREE), 'a second before the end');
  clock.advance(1000);
  assert.equal((await both(limiters, (l) => l.admitKey('k', FREE), 'the ban is over'))?.allowed, true);
  // Another key, another plan: its own buckets.
  assert.equal((await both(limiters, (l) => l.admitKey('p', PRO), 'a pro key'))?.allowed, true);
});

test(
  'refund gives a token back, forgetting a key starts it afresh, the day bucket counts to the day',
  { skip },
  async () => {
    const limiters = await pair();
    for (let i = 0; i < 60; i++) await both(limiters, (l) => l.admitKey('k', FREE), `request ${i + 1}`);
    await both(limiters, async (l) => void (await l.refundKey('k', FREE)), 'refund');
    assert.equal((await both(limiters, (l) => l.admitKey('k', FREE), 'the refunded token'))?.allowed, true);
    assert.equal((await both(limiters, (l) => l.admitKey('k', FREE), 'then empty'))?.allowed, false);
    await both(limiters, async (l) => void (await l.forgetKey('k')), 'forget');
    assert.equal((await both(limiters, (l) => l.admitKey('k', FREE), 'afresh'))?.allowed, true);
    // A day of 1,000: a minute's bucket refills each minute, the day's does not.
    const day = await pair();
    let admitted = 0;
    for (let minute = 0; minute < 20; minute++) {
      for (let i = 0; i < 60; i++)
        if ((await both(day, (l) => l.admitKey('d', FREE), `minute ${minute}`))?.allowed) admitted++;
      day.clock.advance(60_000);
    }
    // The day's 1,000, and the few whole tokens the day bucket refilled meanwhile (13.2 in 19 minutes).
    assert.ok(admitted > 1000 && admitted <= 1013, `${admitted}`);
  },
);

test('failed authentication per address decides alike, and the bucket refills', { skip }, async () => {
  const limiters = await pair({ failedAuthCapacity: 3, failedAuthWindowMs: 3000 });
  assert.equal(await both(limiters, (l) => l.checkAddress('203.0.113.9'), 'unknown address'), undefined);
  for (let i = 0; i < 3; i++) await both(limiters, (l) => l.chargeFailedAuth('203.0.113.9'), `401 number ${i + 1}`);
  const refused = await both(limiters, (l) => l.checkAddress('203.0.113.9'), 'spent');
  assert.equal(refused?.refusal, 'rate_limited');
  limiters.clock.advance(1000);
  assert.equal(await both(limiters, (l) => l.checkAddress('203.0.113.9'), 'one token back'), undefined);
  limiters.clock.advance(2000);
  assert.equal(await both(limiters, (l) => l.checkAddress('203.0.113.9'), 'full again'), undefined);
});

test(
  'every key in Redis expires once it no longer matters; nothing grows without bound',
  { skip, timeout: 30_000 },
  async () => {
    const { redis, prefix } = await pair({
      failedAuthCapacity: 2,
      failedAuthWindowMs: 200,
      refusalWindowMs: 500,
      banMs: 300,
    });
    const limiter = redis as RedisLimiter;
    // A key that spent its minute, was refused into a ban, and 50 addresses with a failed authentication.
    for (let i = 0; i < 60 + 31; i++) await limiter.admitKey('k', FREE);
    for (let i = 0; i < 50; i++) await limiter.chargeFailedAuth(`198.51.100.${i}`);
    const keys = await keysUnder(prefix);
    assert.equal(keys.size, 52, [...keys.keys()].join(', '));
    for (const [key, ttl] of keys) assert.ok(ttl > 0, `${key} has no expiry (${ttl})`);
    // The key's hash lives as long as its day bucket misses tokens (91 of 1,000: ~2.2 h), never for ever.
    const [hash, refusals] = limiter.keysOf('k');
    assert.ok((keys.get(hash) as number) <= Math.ceil((60 * 86_400_000) / 1000) + 1000 + 50);
    assert.ok((keys.get(refusals) as number) <= 500);
    // The addresses' buckets are full again after 200 ms of Redis's real time: they are gone, as is the refusal list.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual([...(await keysUnder(prefix)).keys()], [hash]);
    await limiter.forgetKey('k');
    assert.equal((await keysUnder(prefix)).size, 0);
  },
);
