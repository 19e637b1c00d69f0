// What `--checks instructions --instructions-on` runs the counted service on: the servers started for
// it, seeded as the backends check seeds them, and everything made for it removed afterwards.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startInstructionBacking } from '../../bench/backends.js';
import { postgresSkipReason } from '../helpers/postgres.js';
import { redisSkipReason } from '../helpers/redis.js';

const postgresSkip = await postgresSkipReason();
/** The Redis the bench uses when it starts none of its own (bench/backends.ts). */
const SHARED_REDIS_URL = process.env.ANIMAL_STORE_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisSkip = await redisSkipReason();

/** The pets of the database at `url`, or the error that reading them met. */
async function petCount(url: string): Promise<number | Error> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM pets');
    return Number(rows[0]?.count);
  } catch (error) {
    return error as Error;
  } finally {
    await client.end().catch(() => {});
  }
}

test('memory needs no server: the service keeps its own options', async () => {
  const backing = await startInstructionBacking('memory');
  assert.deepEqual(backing.options, {});
  await backing.stop();
});

test(
  'postgres is a database of its own seeded with the bench’s pets, dropped by stop',
  { skip: postgresSkip },
  async () => {
    const backing = await startInstructionBacking('postgres');
    const url = backing.options.databaseUrl;
    assert.ok(url !== undefined, 'the service is given the database');
    assert.equal(backing.options.pets, 0, 'the service seeds nothing itself');
    try {
      assert.equal(await petCount(url), 1000);
    } finally {
      await backing.stop();
    }
    const after = await petCount(url);
    assert.ok(after instanceof Error && /does not exist/.test(after.message), `dropped: ${String(after)}`);
  },
);

test(
  'redis is a Redis the limiter can use, and stop leaves no server of the bench’s own',
  { skip: redisSkip },
  async () => {
    const backing = await startInstructionBacking('redis');
    const url = backing.options.redisUrl;
    assert.ok(url !== undefined, 'the service is given a Redis');
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => {});
    try {
      await redis.connect();
      assert.equal(await redis.ping(), 'PONG');
    } finally {
      redis.disconnect();
      await backing.stop();
    }
    // A redis-server the bench started for this is gone; the machine's (or the one named) is left running.
    if (url !== SHARED_REDIS_URL) {
      const { hostname, port } = new URL(url);
      const socket = connect(Number(port), hostname);
      const outcome = await new Promise<string | undefined>((resolve) => {
        socket.once('connect', () => resolve('connected'));
        socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code));
      });
      socket.destroy();
      assert.equal(outcome, 'ECONNREFUSED');
    }
  },
);
