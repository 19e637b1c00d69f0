// Redis for tests: the server of this machine (ANIMAL_STORE_TEST_REDIS_URL, by default
// redis://127.0.0.1:6379), with a fresh key prefix per test file so runs never see each other's keys.
// Unreachable, the tests that need it are skipped with one line, or fail when
// ANIMAL_STORE_TEST_SERVICES=required. A private redis-server on a spare port serves the tests that
// stop and start it.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { freePort } from './ports.js';
import { SERVICES_REQUIRED } from './postgres.js';

const run = promisify(execFile);

/** The Redis the tests use. */
export const TEST_REDIS_URL = process.env.ANIMAL_STORE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The Redis the shared contract suite runs its services' limiters on, when it runs on Redis (see
 * test/store/postgres-contract.test.ts); undefined keeps them on the in-memory limiter.
 */
export const CONTRACT_REDIS_VARIABLE = 'ANIMAL_STORE_TEST_CONTRACT_REDIS';

/** A prefix no other run uses. */
export function freshPrefix(): string {
  return `animal-store-test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Why Redis tests cannot run here (a skip reason), or undefined when they can; throws when required. */
export async function redisSkipReason(): Promise<string | undefined> {
  const host = new URL(TEST_REDIS_URL).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1')
    throw new Error(`ANIMAL_STORE_TEST_REDIS_URL must name a loopback server, not ${host}`);
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
    return undefined;
  } catch (error) {
    const reason = `Redis is not reachable at ${TEST_REDIS_URL} (${(error as Error).message}); set ANIMAL_STORE_TEST_REDIS_URL`;
    if (SERVICES_REQUIRED) throw new Error(`${reason}; ANIMAL_STORE_TEST_SERVICES=required`);
    return reason;
  } finally {
    redis.disconnect();
  }
}

/** The keys under `prefix`, and how long each has to live (ms; -1 none, -2 gone). */
export async function keysUnder(prefix: string): Promise<Map<string, number>> {
  const redis = new Redis(TEST_REDIS_URL);
  try {
    // The times to live asked for together, not a round trip each: the longer the reading takes, the
    // likelier a key expires between KEYS and its PTTL (which then reads -2).
    const keys = await redis.keys(`${prefix}*`);
    const ttls = await Promise.all(keys.map((key) => redis.pttl(key)));
    return new Map(keys.map((key, index) => [key, ttls[index] as number]));
  } finally {
    redis.disconnect();
  }
}

/** Why a private redis-server cannot be started here, or undefined. */
export function privateRedisSkipReason(): string | undefined {
  return existsSync('/usr/bin/redis-server') ? undefined : 'redis-server is not installed';
}

/** A redis-server of the test's own on a spare port, keeping nothing on disk, that the test stops and starts. */
export async function startPrivateRedis(): Promise<{ url: string; stop(): Promise<void>; start(): Promise<void> }> {
  const port = await freePort();
  const start = async (): Promise<void> => {
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
        detached: true,
      },
    );
    server.unref();
    for (let tries = 0; tries < 100; tries++) {
      const ok = await run('redis-cli', ['-p', String(port), 'ping']).then(
        ({ stdout }) => stdout.trim() === 'PONG',
        () => false,
      );
      if (ok) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`redis-server did not start on port ${port}`);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      await run('redis-cli', ['-p', String(port), 'shutdown', 'nosave']).catch(() => {});
    },
    start,
  };
}
