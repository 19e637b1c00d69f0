// One suite, two limiters: the same calls at the same instants to the in-memory limiter and to the
// Redis limiter (a real Redis, its scripts given the test's clock instead of Redis's), and the same
// decisions back, with every number the headers are rendered from: buckets, refusals, the ban and its
// end, refunds, forgetting, the failed-authentication bucket, and a request's steps asked in one call.
// Then what only Redis has: every key it writes expires once it no longer matters; the requests of one
// turn go in one script call, decided in order; a batch Redis does not answer fails each of its requests.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { ManualClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import { UNLIMITED } from '../../src/limits/decision.js';
import {
  type Decision,
  isAddressRefusal,
  type Limiter,
  MemoryLimiter,
  PLAN_LIMITS,
  resolveLimiterOptions,
} from '../../src/limits/index.js';
import { openRedisLimiter } from '../../src/limits/redis/open-redis-limiter.js';
import { MAX_BATCH, RedisLimiter } from '../../src/limits/redis/redis-limiter.js';
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

test('an enterprise key of 15-digit limits counts every token alike in memory and in Redis', { skip }, async () => {
  const limiters = await pair();
  const huge = { perMinute: 999_999_999_999_999, perDay: 999_999_999_999_999 };
  for (let i = 1; i <= 3; i++) {
    const decision = await both(limiters, (l) => l.admitKey('e', huge), `request ${i}`);
    assert.equal(decision?.allowed, true);
    assert.equal(decision?.bucket?.remaining, huge.perMinute - i, `request ${i}`);
  }
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

test('every key in Redis expires once it no longer matters; nothing grows without bound', { skip }, async () => {
  // Expiry in Redis runs on Redis's real time, not the test's clock: the windows are seconds long, so
  // that a machine that stalls the test between the writes and the reading below loses no key early.
  const { redis, prefix } = await pair({
    failedAuthCapacity: 2,
    failedAuthWindowMs: 2000,
    refusalWindowMs: 5000,
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
  assert.ok((keys.get(refusals) as number) <= 5000);
  // The addresses' buckets are full again after 2 s of Redis's real time, and the refusal window ends
  // after 5 s: then they are gone, and the key's hash alone is left.
  const deadline = Date.now() + 30_000;
  let left = [...(await keysUnder(prefix)).keys()];
  while (left.length > 1 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    left = [...(await keysUnder(prefix)).keys()];
  }
  assert.deepEqual(left, [hash]);
  await limiter.forgetKey('k');
  assert.equal((await keysUnder(prefix)).size, 0);
});

test(
  'one call a request: admit and refuseAuthentication decide as their steps would, alike in memory and in Redis',
  { skip },
  async () => {
    const limiters = await pair({ failedAuthCapacity: 2, failedAuthWindowMs: 60_000 });
    const address = '203.0.113.7';
    // Within the address's budget: the key's admission; a request without a key: the 401's charge.
    const admitted = await both(limiters, (l) => l.admit(address, 'k', FREE), 'a valid key');
    assert.equal(admitted?.allowed, true);
    assert.equal(isAddressRefusal(admitted as Decision), false);
    for (let i = 0; i < 2; i++) {
      const charged = await both(limiters, (l) => l.refuseAuthentication(address), `401 number ${i + 1}`);
      assert.equal(charged?.allowed, true, 'the 401 is the answer; the decision tells of the bucket it was charged to');
      assert.equal(charged?.bucket?.remaining, 1 - i);
    }
    // Spent: refused whatever the key, which pays nothing; a request without a key is not charged again.
    const refused = await both(limiters, (l) => l.admit(address, 'k', FREE), 'a valid key from a spent address');
    assert.equal(isAddressRefusal(refused as Decision), true);
    assert.equal(refused?.retryAfterSeconds, 30);
    const again = await both(limiters, (l) => l.refuseAuthentication(address), 'a wrong key from a spent address');
    assert.equal(again?.allowed, false);
    assert.equal(again?.bucket?.remaining, 0);
    // The key's minute bucket still holds 59 of 60: the refusals took nothing from it.
    const elsewhere = await both(limiters, (l) => l.admit('198.51.100.1', 'k', FREE), 'the key from another address');
    assert.equal(elsewhere?.bucket?.remaining, 58);
    limiters.clock.advance(30_000);
    assert.equal((await both(limiters, (l) => l.admit(address, 'k', FREE), 'a token back'))?.allowed, true);
  },
);

/** A limiter on a client of the test's own, whose script calls are counted. */
async function counted(unavailable: 'closed' | 'open' = 'closed') {
  const clock = new ManualClock(T0_MS);
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
  redis.on('error', () => {});
  await redis.connect();
  const calls: string[] = [];
  /** The number of keys each script call named. */
  const keysNamed: number[] = [];
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    calls.push(command.name);
    if (/^eval/.test(command.name)) keysNamed.push(Number(command.args[1]));
    return send(command, stream);
  };
  const warnings: string[] = [];
  const limiter = new RedisLimiter({
    redis,
    prefix: freshPrefix(),
    options: resolveLimiterOptions(undefined),
    unavailable,
    time: () => clock.now(),
    onAvailability: (available, cause) => warnings.push(available ? 'back' : `away: ${cause}`),
  });
  opened.push(limiter);
  return { clock, limiter, redis, calls, keysNamed, warnings, memory: new MemoryLimiter(clock) };
}

const scriptCalls = (calls: readonly string[]): number => calls.filter((name) => /^eval/.test(name)).length;

test(
  'the requests of one turn go to Redis in one script call, decided in the order they arrived: the 61st of a free key is refused',
  { skip },
  async () => {
    const { limiter, calls, keysNamed, memory } = await counted();
    // 61 requests of one key and, between them, another key's: all asked for in one turn.
    const asked = Array.from({ length: 61 }, () => limiter.admit('192.0.2.1', 'k', FREE));
    const other = limiter.admit('192.0.2.2', 'other', FREE);
    const decisions = await Promise.all(asked);
    assert.equal(scriptCalls(calls), 1, `one script call for the turn: ${calls.join(', ')}`);
    // Each Redis key is sent once however many requests name it: two addresses, and two API keys' two keys.
    assert.deepEqual(keysNamed, [6]);
    decisions.forEach((decision, index) => {
      assert.equal(decision.allowed, index < 60, `request ${index + 1}`);
      assert.deepEqual(decision, memory.admit('192.0.2.1', 'k', FREE), `request ${index + 1}, as in memory`);
    });
    assert.equal(decisions[59]?.bucket?.remaining, 0);
    assert.equal(decisions[60]?.refusal, 'rate_limited');
    assert.equal((await other).bucket?.remaining, 59, "another key's buckets are its own");
    // A turn of more than a batch holds: refusals counted in order into a ban, the ban then in force.
    calls.length = 0;
    const many = await Promise.all(Array.from({ length: MAX_BATCH + 40 }, () => limiter.admitKey('k', FREE)));
    assert.equal(scriptCalls(calls), 2, 'a full batch is sent at once, the rest at the end of the turn');
    many.forEach((decision, index) =>
      assert.deepEqual(decision, memory.admitKey('k', FREE), `request ${index + 62}, as in memory`),
    );
    assert.equal(many[29]?.banStarted, true, 'the 31st refusal starts the ban');
    assert.equal(many[30]?.refusal, 'temporarily_banned');
    assert.equal(many.at(-1)?.refusal, 'temporarily_banned');
  },
);

test(
  'one turn of one key and one address: admissions, a refund, a forget and 401s decide as calls one at a time would, and Redis keeps what the last left',
  { skip },
  async () => {
    const { limiter, calls, memory, clock, redis } = await counted();
    const address = '192.0.2.9';
    type Step = (target: Limiter) => Decision | undefined | Promise<Decision | undefined | void> | void;
    const steps: [string, Step][] = [
      ['admit', (target) => target.admit(address, 'k', FREE)],
      ['admit', (target) => target.admit(address, 'k', FREE)],
      ['refund', (target) => target.refundKey('k', FREE)],
      ['admit', (target) => target.admitKey('k', FREE)],
      ['check before any 401', (target) => target.checkAddress(address)],
      // The address's whole failed-authentication budget (30), then one 401 too many.
      ...Array.from({ length: 31 }, (): [string, Step] => ['401', (target) => target.refuseAuthentication(address)]),
      ['check when spent', (target) => target.checkAddress(address)],
      ['admit from the spent address', (target) => target.admit(address, 'k', FREE)],
      ['forget', (target) => target.forgetKey('k')],
      ['admit after the forget', (target) => target.admit(address, 'k', FREE)],
      ['admit', (target) => target.admitKey('k', FREE)],
    ];
    const asked = steps.map(async ([, step]) => step(limiter));
    const answers = await Promise.all(asked);
    assert.equal(scriptCalls(calls), 1, `one script call for the turn: ${calls.join(', ')}`);
    for (const [index, [label, step]] of steps.entries())
      assert.deepEqual(answers[index], step(memory), `step ${index + 1}, ${label}: as in memory`);
    const spent = answers[steps.findIndex(([label]) => label === 'check when spent')] as Decision | undefined;
    assert.equal(spent?.allowed, false, 'the spent address is refused');
    // What Redis kept is the state the last step left: a later turn decides as memory does.
    clock.advance(1_000);
    assert.deepEqual(await limiter.admit(address, 'k', FREE), memory.admit(address, 'k', FREE));
    assert.deepEqual(await limiter.admitKey('k', FREE), memory.admitKey('k', FREE));
    // Two tokens taken since the forget (the spent address refused the other requests), a second's
    // refill back: the day bucket is full again after the rest of two tokens' refill (86.4 s each),
    // and the state is kept a second more.
    const refillMs = 86_400_000 / FREE.perDay;
    const expected = Math.ceil(2 * refillMs - 1_000) + 1_000;
    const left = await redis.pttl(limiter.keysOf('k')[0]);
    assert.ok(
      left > expected - 1_000 && left <= expected + 1,
      `the key's state expires when its buckets are full (${left} ms)`,
    );
  },
);

test(
  'a batch that Redis does not answer: each of its requests gets 503 (closed) or no limits (open), with one warning',
  { skip },
  async () => {
    const closed = await counted('closed');
    closed.redis.disconnect();
    const asked = [
      closed.limiter.admit('192.0.2.1', 'k', FREE),
      closed.limiter.admit('192.0.2.1', 'k', FREE),
      closed.limiter.refuseAuthentication('192.0.2.3'),
      closed.limiter.checkAddress('192.0.2.4'),
      closed.limiter.admitKey('k2', PRO),
    ];
    for (const result of await Promise.allSettled(asked)) {
      assert.equal(result.status, 'rejected');
      const error = (result as PromiseRejectedResult).reason as ApiError;
      assert.ok(error instanceof ApiError, String(error));
      assert.equal(error.code, 'unavailable');
      assert.equal(error.retryAfterSeconds, 1);
    }
    assert.equal(closed.warnings.length, 1, closed.warnings.join('; '));
    assert.match(closed.warnings[0] ?? '', /^away: /);

    const open = await counted('open');
    open.redis.disconnect();
    const [admitted, unauthenticated, checked, charged] = await Promise.all([
      open.limiter.admit('192.0.2.1', 'k', FREE),
      open.limiter.refuseAuthentication('192.0.2.3'),
      open.limiter.checkAddress('192.0.2.4'),
      open.limiter.chargeFailedAuth('192.0.2.5'),
    ]);
    assert.deepEqual(admitted, UNLIMITED);
    assert.deepEqual(unauthenticated, UNLIMITED);
    assert.equal(checked, undefined);
    assert.deepEqual(charged, UNLIMITED);
    assert.equal(open.warnings.length, 1, open.warnings.join('; '));
  },
);
