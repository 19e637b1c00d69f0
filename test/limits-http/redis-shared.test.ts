// Rate limits shared through Redis by two real service processes, hit alternately: a key of 60 a
// minute gets exactly 60 requests between them (its day is 60 too, so that no token comes back while a
// busy machine sends them: a minute bucket refills one a second), the 31st refusal within 60 s starts one ban that both
// honour, and the headers agree whichever instance answers. The ban lives in Redis, so it outlasts a
// restart of every instance. Then Redis itself goes away, under `closed` and under `open`.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Agent, request } from 'undici';
import { type Child, runCli, waitForListening } from '../helpers/child.js';
import { SERVICES_REQUIRED } from '../helpers/postgres.js';
import {
  freshPrefix,
  privateRedisSkipReason,
  redisSkipReason,
  startPrivateRedis,
  TEST_REDIS_URL,
} from '../helpers/redis.js';

const KEY = 'redis-shared-free-key-0123456789';
/** 60 a minute, and 60 a day: the day bucket gives back one token in 24 minutes, not one a second. */
const SIXTY_A_MINUTE_AND_A_DAY = 'enterprise:60:60';
const skip = await redisSkipReason();
const agent = new Agent();
const children: Child[] = [];
const dirs: string[] = [];
after(async () => {
  for (const child of children) child.process.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await agent.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A service process on its own embedded store, with the limits in the given Redis. */
async function serve(redisUrl: string, prefix: string, extra: string[] = []): Promise<{ child: Child; url: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-redis-'));
  dirs.push(dir);
  const child = runCli(
    [
      'serve',
      '--port',
      '0',
      '--data-dir',
      dir,
      '--redis-url',
      redisUrl,
      '--redis-prefix',
      prefix,
      '--log-level',
      'warn',
      ...extra,
    ],
    { ANIMAL_STORE_KEYS: `${KEY}:${SIXTY_A_MINUTE_AND_A_DAY}` },
  );
  children.push(child);
  return { child, url: await waitForListening(child) };
}

async function get(apiUrl: string): Promise<{ status: number; headers: Record<string, string>; code?: string }> {
  const response = await request(`${apiUrl}/pets`, { headers: { authorization: `Bearer ${KEY}` }, dispatcher: agent });
  const body = (await response.body.json()) as { code?: string };
  const headers = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, String(value)]));
  return { status: response.statusCode, headers, ...(body.code !== undefined && { code: body.code }) };
}

test(
  "two instances share one key's limits exactly, one ban, and agreeing headers; the ban outlasts a restart",
  { skip, timeout: 120_000 },
  async () => {
    const prefix = freshPrefix();
    const [a, b] = await Promise.all([serve(TEST_REDIS_URL, prefix), serve(TEST_REDIS_URL, prefix)]);
    const answers = [];
    for (let i = 0; i < 60; i++) answers.push(await get(i % 2 === 0 ? a.url : b.url));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      Array.from({ length: 60 }, () => 200),
    );
    const remaining = answers.map((answer) => Number(answer.headers['x-ratelimit-remaining']));
    assert.deepEqual(
      remaining,
      Array.from({ length: 60 }, (_, i) => 59 - i),
      'one bucket, counted down by both',
    );
    const [fromA, fromB] = [await get(a.url), await get(b.url)];
    assert.equal(fromA.status, 429);
    assert.equal(fromB.status, 429);
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'ratelimit-policy'])
      assert.equal(fromA.headers[name], fromB.headers[name], name);
    assert.ok(Math.abs(Number(fromA.headers['x-ratelimit-reset']) - Number(fromB.headers['x-ratelimit-reset'])) <= 1);
    // 2 refusals so far; 29 more (alternating) make 31 within the minute: the last one starts the ban.
    for (let i = 0; i < 29; i++) assert.equal((await get(i % 2 === 0 ? a.url : b.url)).code, 'rate_limited');
    const bannedA = await get(a.url);
    const bannedB = await get(b.url);
    assert.equal(bannedA.code, 'temporarily_banned');
    assert.equal(bannedB.code, 'temporarily_banned');
    assert.ok(Number(bannedA.headers['retry-after']) > 890);

    // Every instance restarted: the ban is still there.
    for (const instance of [a, b]) {
      instance.child.process.kill('SIGTERM');
      assert.equal(await instance.child.exited, 0);
    }
    const c = await serve(TEST_REDIS_URL, prefix);
    assert.equal((await get(c.url)).code, 'temporarily_banned');
  },
);

const privateSkip = skip ?? privateRedisSkipReason();
if (privateSkip !== undefined && SERVICES_REQUIRED && skip === undefined)
  throw new Error(`${privateSkip}; ANIMAL_STORE_TEST_SERVICES=required`);

for (const mode of ['closed', 'open'] as const) {
  test(
    `Redis stopped and started under ${mode}: ${mode === 'closed' ? '503 with Retry-After' : 'served without limits'}, one warning, then limits again`,
    { skip: privateSkip, timeout: 120_000 },
    async () => {
      const redis = await startPrivateRedis();
      try {
        const prefix = freshPrefix();
        const service = await serve(redis.url, prefix, ['--limiter-unavailable', mode]);
        assert.equal((await get(service.url)).status, 200);
        await redis.stop();
        const during = [await get(service.url), await get(service.url), await get(service.url)];
        for (const answer of during) {
          if (mode === 'closed') {
            assert.equal(answer.status, 503);
            assert.equal(answer.code, 'unavailable');
            assert.equal(answer.headers['retry-after'], '1');
          } else {
            assert.equal(answer.status, 200);
            assert.equal(answer.headers['x-ratelimit-limit'], undefined, 'no limits, so no limit headers');
          }
        }
        const warnings = service.child
          .stderr()
          .split('\n')
          .filter((line) => line.includes('cannot be reached'));
        assert.equal(warnings.length, 1, service.child.stderr());
        // Worded for an operator: where, why, and what the service does meanwhile; the client library's
        // own message is a field of the line, not its text.
        const warning = JSON.parse(warnings[0] as string) as { msg: string; error?: unknown };
        const meanwhile =
          mode === 'closed'
            ? 'API requests get 503 until it answers again \\(--limiter-unavailable closed\\)'
            : 'API requests are served without rate limits until it answers again \\(--limiter-unavailable open\\)';
        assert.match(
          warning.msg,
          new RegExp(
            `^Redis at ${redis.url.replaceAll('/', '\\/')} cannot be reached \\((the connection was lost|connection refused: nothing listens there)\\); ${meanwhile}; reconnecting every 2 s at most$`,
          ),
        );
        assert.doesNotMatch(warning.msg, /enableOfflineQueue|writeable|Stream/);
        assert.equal(typeof warning.error, 'string', 'the original error is kept as a field');
        await redis.start();
        let back = await get(service.url);
        for (let tries = 0; back.headers['x-ratelimit-limit'] === undefined && tries < 100; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          back = await get(service.url);
        }
        assert.equal(back.status, 200);
        assert.equal(back.headers['x-ratelimit-limit'], '60');
        assert.match(service.child.stderr(), /answers again/);
      } finally {
        await redis.stop();
      }
    },
  );
}

test(
  'a Redis that cannot be reached stops the start with one line naming it, exit 1',
  { timeout: 120_000 },
  async () => {
    const child = runCli(['serve', '--port', '0', '--redis-url', 'redis://:secret-password@127.0.0.1:1'], {
      ANIMAL_STORE_KEYS: `${KEY}:${SIXTY_A_MINUTE_AND_A_DAY}`,
    });
    children.push(child);
    assert.equal(await child.exited, 1);
    const lines = child.stderr().trim().split('\n');
    assert.equal(lines.length, 1, child.stderr());
    assert.match(lines[0] as string, /cannot reach Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/);
    assert.doesNotMatch(child.stderr(), /secret-password/);
  },
);
