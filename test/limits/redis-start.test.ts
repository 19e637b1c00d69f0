// Starting on a Redis that answers late: a busy host can hold Redis's first replies past the requests'
// command timeout, and the start waits for them (up to its own timeout) instead of failing. Once
// started, a command gets the requests' timeout again. A Redis that never answers stops the start,
// saying how long it waited.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { COMMAND_TIMEOUT_MS, openRedisLimiter } from '../../src/limits/redis/open-redis-limiter.js';
import { startHeldRepliesProxy, type HeldRepliesProxy } from '../helpers/held-replies-proxy.js';
import { freshPrefix, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';

const skip = await redisSkipReason();
const proxies: HeldRepliesProxy[] = [];
after(async () => {
  for (const proxy of proxies) await proxy.close();
});

/** A proxy to the test Redis whose replies are held from the start. */
async function heldProxy(): Promise<HeldRepliesProxy> {
  const proxy = await startHeldRepliesProxy(Number(new URL(TEST_REDIS_URL).port || '6379'), true);
  proxies.push(proxy);
  return proxy;
}

function open(proxy: HeldRepliesProxy, startTimeoutMs?: number) {
  return openRedisLimiter({
    redisUrl: `redis://127.0.0.1:${proxy.port}`,
    prefix: freshPrefix(),
    unavailable: 'closed',
    limits: undefined,
    warn: () => {},
    ...(startTimeoutMs !== undefined && { startTimeoutMs }),
  });
}

test('replies held past the command timeout at start-up: the start waits for them', { skip }, async () => {
  const proxy = await heldProxy();
  const opening = open(proxy);
  const heldMs = 2.5 * COMMAND_TIMEOUT_MS;
  setTimeout(() => proxy.release(), heldMs);
  const started = performance.now();
  const limiter = await opening;
  try {
    assert.ok(performance.now() - started >= heldMs - 50, 'it answered only once the replies were let go');
    await limiter.ping();
    // Started, a command that gets no answer fails after the requests' timeout, not the start's.
    proxy.hold();
    const asked = performance.now();
    await assert.rejects(limiter.ping(), /timed out/);
    const waited = performance.now() - asked;
    assert.ok(waited < 3 * COMMAND_TIMEOUT_MS, `failed after ${Math.round(waited)} ms`);
  } finally {
    proxy.release();
    await limiter.close();
  }
});

test('a Redis that never answers stops the start after the start timeout, saying so', { skip }, async () => {
  const proxy = await heldProxy();
  await assert.rejects(
    open(proxy, 1500),
    new RegExp(`^Error: cannot reach Redis at redis://127\\.0\\.0\\.1:${proxy.port}: no answer within 1500 ms$`),
  );
});
