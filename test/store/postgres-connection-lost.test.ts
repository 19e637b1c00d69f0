// A connection lost while a transaction holds it (between two of its statements), on a real server
// behind a proxy the test cuts: the transaction fails with 503 unavailable, the connection is not
// reused, and the process goes on; without a listener on the checked-out connection, its 'error'
// event would have ended the process.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { ApiError } from '../../src/core/errors.js';
import { Database } from '../../src/store/postgres/database.js';
import { ADMIN_URL, createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

const skip = await postgresSkipReason();
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let proxy: TcpProxy | undefined;
const clients = new Set<Socket>();

before(async () => {
  if (skip !== undefined) return;
  database = await createTestDatabase();
  proxy = await startTcpProxy(Number(new URL(ADMIN_URL).port || 5432), (client, upstream) => {
    clients.add(client);
    client.pipe(upstream);
    upstream.pipe(client);
  });
});
after(async () => {
  await proxy?.close();
  await database?.drop();
});

test(
  'a connection lost between two statements of a transaction fails it with 503, and is not reused',
  { skip },
  async () => {
    const url = new URL((database as { url: string }).url);
    url.hostname = '127.0.0.1';
    url.port = String((proxy as TcpProxy).port);
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
    pool.on('error', () => {});
    const availability: boolean[] = [];
    const db = new Database(pool, (available) => availability.push(available));
    try {
      const failed = db.transaction(async (client) => {
        await client.query('SELECT 1');
        // The connection is cut while the transaction holds it and no statement is under way.
        // (Not events.once, which would listen for 'error' too.)
        const ended = new Promise((resolve) => client.once('end', resolve));
        for (const socket of clients) socket.destroy();
        await ended;
        await client.query('SELECT 2');
      });
      await assert.rejects(failed, (error: unknown) => error instanceof ApiError && error.code === 'unavailable');
      assert.deepEqual(availability, [false]);
      assert.equal(pool.totalCount, 0, 'the lost connection was closed, not given back');
      // The next transaction takes a new connection and is carried out.
      assert.equal(await db.transaction(async (client) => (await client.query('SELECT 3 AS n')).rows[0].n), 3);
      assert.deepEqual(availability, [false, true]);
    } finally {
      await pool.end();
    }
  },
);
