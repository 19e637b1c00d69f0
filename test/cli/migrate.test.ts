// `animal-store migrate`: an embedded store written by a real service is copied into an empty
// PostgreSQL database; a service on the database then answers as the old one did: the same pets and
// orders, the old cursors, the old Idempotency-Key answers, the old keys, and ids that go on.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Agent } from 'undici';
import { type ApiAnswer, sendApi } from '../helpers/api-request.js';
import { runCli, waitForListening } from '../helpers/child.js';
import { createTestDatabase, postgresSkipReason, queryRows } from '../helpers/postgres.js';

const skip = await postgresSkipReason();
const agent = new Agent();
let dataDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'animal-store-migrate-'));
  if (skip === undefined) database = await createTestDatabase();
});
after(async () => {
  await agent.close();
  await rm(dataDir, { recursive: true, force: true });
  await database?.drop();
});

const send = (
  apiUrl: string,
  key: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> => sendApi(agent, apiUrl, key, method, path, body, headers);

test(
  'an embedded store moves to PostgreSQL whole: pets, orders, ids, cursors, answers and keys',
  { skip, timeout: 120_000 },
  async () => {
    const url = (database as { url: string }).url;
    const embedded = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
      ANIMAL_STORE_KEYS: '',
    });
    const embeddedUrl = await waitForListening(embedded);
    const key = /\n\n {2}(\S+)\n/.exec(embedded.stdout())?.[1] as string;
    for (let i = 1; i <= 7; i++) {
      const created = await send(
        embeddedUrl,
        key,
        'POST',
        '/pets',
        { name: `Pet ${i}`, categoryId: i },
        { 'idempotency-key': `pet-${i}` },
      );
      assert.equal(created.status, 201);
    }
    assert.equal((await send(embeddedUrl, key, 'POST', '/store/orders', { petId: 2 })).status, 201);
    const firstPage = await send(embeddedUrl, key, 'GET', '/pets?limit=3');
    const cursorPath = (firstPage.headers['x-next'] as string).replace(/^\/v1/, '');
    const pageBefore = await send(embeddedUrl, key, 'GET', cursorPath);
    const listBefore = await send(embeddedUrl, key, 'GET', '/pets?limit=100');
    const ordersBefore = await send(embeddedUrl, key, 'GET', '/store/orders');
    embedded.process.kill('SIGTERM');
    assert.equal(await embedded.exited, 0);

    const migrate = runCli(['migrate', '--data-dir', dataDir, '--database-url', url]);
    assert.equal(await migrate.exited, 0, migrate.stderr());
    assert.match(migrate.stdout(), /Copied 7 pets, 1 orders, 7 remembered answers and 1 keys .* the counts match/);
    assert.deepEqual(await queryRows(url, 'SELECT count(*)::int AS n FROM pets'), [{ n: 7 }]);

    const again = runCli(['migrate', '--data-dir', dataDir, '--database-url', url]);
    assert.equal(await again.exited, 1);
    assert.match(again.stderr(), /already holds animal-store data/);

    // Its in-memory limiter saves its day buckets in a data directory of its own, not in ./data.
    const limiterDir = join(dataDir, 'limiter');
    const moved = runCli(
      ['serve', '--port', '0', '--database-url', url, '--data-dir', limiterDir, '--log-level', 'warn'],
      { ANIMAL_STORE_KEYS: '' },
    );
    try {
      const movedUrl = await waitForListening(moved);
      assert.doesNotMatch(moved.stdout(), /Created a first API key/, 'the old key came along');
      assert.equal((await send(movedUrl, key, 'GET', '/pets?limit=100')).text, listBefore.text);
      assert.equal((await send(movedUrl, key, 'GET', '/store/orders')).text, ordersBefore.text);
      assert.equal((await send(movedUrl, key, 'GET', cursorPath)).text, pageBefore.text, 'an old cursor still works');
      const replay = await send(
        movedUrl,
        key,
        'POST',
        '/pets',
        { name: 'Pet 3', categoryId: 3 },
        { 'idempotency-key': 'pet-3' },
      );
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(JSON.parse(replay.text).id, 3);
      const next = await send(movedUrl, key, 'POST', '/pets', { name: 'New', categoryId: 1 });
      assert.equal(JSON.parse(next.text).id, 8, 'ids go on after the highest one handed out');
      const nextOrder = await send(movedUrl, key, 'POST', '/store/orders', { petId: 5 });
      assert.equal(JSON.parse(nextOrder.text).id, 2);
      assert.equal((await send(movedUrl, key, 'GET', '/pets?status=pending')).headers['x-total-count'], '2');
    } finally {
      moved.process.kill('SIGTERM');
      await moved.exited;
    }
  },
);

test('migrate refuses what it cannot do, with one line', { timeout: 120_000 }, async () => {
  const noUrl = runCli(['migrate', '--data-dir', dataDir], { ANIMAL_STORE_DATABASE_URL: '' });
  assert.equal(await noUrl.exited, 2);
  assert.match(noUrl.stderr(), /migrate needs --database-url/);
  const badUrl = runCli(['migrate', '--data-dir', dataDir, '--database-url', 'mysql://x/y']);
  assert.equal(await badUrl.exited, 2);
  assert.match(badUrl.stderr(), /postgres:\/\//);
  const empty = await mkdtemp(join(tmpdir(), 'animal-store-migrate-empty-'));
  try {
    const noStore = runCli(['migrate', '--data-dir', empty, '--database-url', 'postgres://postgres@127.0.0.1:1/x']);
    assert.equal(await noStore.exited, 1);
    assert.match(noStore.stderr(), /holds no animal store/);
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});
