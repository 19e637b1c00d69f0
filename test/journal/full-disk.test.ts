// A real full disk: a 1 MiB tmpfs (Linux, root only; skipped elsewhere). Appends fill it until one is
// refused with ENOSPC; the log then holds exactly the acknowledged records, and once a filler file is
// removed, appends work again.

import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, rmdir, statfs, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { promisify } from 'node:util';
import { StorageUnavailableError } from '../../src/journal/errors.js';
import type { Journal } from '../../src/journal/journal.js';
import { openJournal } from '../../src/journal/open-journal.js';
import { replay } from '../../src/journal/replay.js';
import { type Child, runCli, waitForListening } from '../helpers/child.js';
import { call, type Reply, startServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const TMPFS_SIZE = '1m';
const FILLER_BYTES = 256 * 1024;
const BATCH = 32;
const FULL_KEY = 'full-disk-key-0123456789abcdef';

/** An answer of the child service. */
interface Sent {
  status: number;
  text: string;
  json: unknown;
}

/** Appends batches of concurrent records until one is refused; resolves to those acknowledged and the first refusal. */
async function fill(journal: Journal): Promise<{ acknowledged: string[]; refusal: unknown }> {
  const acknowledged: string[] = [];
  let refusal: unknown;
  const padding = 'x'.repeat(300);
  for (let id = 1; refusal === undefined;) {
    const batch: Array<Promise<void>> = [];
    for (let i = 0; i < BATCH; i += 1, id += 1) {
      const payload = JSON.stringify({ id, padding });
      batch.push(
        journal.append(payload).then(
          () => void acknowledged.push(payload),
          (error: unknown) => {
            refusal ??= error;
          },
        ),
      );
    }
    await Promise.all(batch);
    if (id > 100_000) throw new Error('the disk never filled up');
  }
  return { acknowledged, refusal };
}

/**
 * Runs `body` with a fresh tmpfs of TMPFS_SIZE mounted at a temporary directory, unmounted after; the
 * test is skipped where none can be mounted (not Linux, or not root).
 */
async function withTmpfs(t: TestContext, prefix: string, body: (mountPoint: string) => Promise<void>): Promise<void> {
  if (process.platform !== 'linux') {
    t.skip('needs a Linux tmpfs');
    return;
  }
  const mountPoint = await mkdtemp(join(tmpdir(), prefix));
  try {
    try {
      await run('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_SIZE}`, 'tmpfs', mountPoint]);
    } catch (error) {
      t.skip(`cannot mount a tmpfs here (needs root): ${(error as Error).message.split('\n')[0]}`);
      return;
    }
    try {
      await body(mountPoint);
    } finally {
      await run('umount', [mountPoint]);
    }
  } finally {
    await rmdir(mountPoint).catch(() => rm(mountPoint, { recursive: true, force: true }));
  }
}

const byId = (a: string, b: string) => (JSON.parse(a) as { id: number }).id - (JSON.parse(b) as { id: number }).id;

test('a real full disk: ENOSPC is refused cleanly, the log holds exactly what was acknowledged, writes resume with room', (t) =>
  withTmpfs(t, 'animal-store-full-', async (mountPoint) => {
    let journal: Journal | undefined;
    try {
      const dir = join(mountPoint, 'data');
      const filler = join(mountPoint, 'filler');
      await writeFile(filler, Buffer.alloc(FILLER_BYTES));
      journal = (await openJournal({ dir })).journal;
      const { acknowledged, refusal } = await fill(journal);
      assert.ok(refusal instanceof StorageUnavailableError, String(refusal));
      assert.equal(refusal.code, 'ENOSPC');
      assert.ok(acknowledged.length > 100);
      const log = join(dir, 'animals.log');
      const onDisk = replay(await readFile(log), log);
      assert.equal(onDisk.tornTail, undefined, 'nothing half-written stays');
      assert.deepEqual(onDisk.payloads, [...acknowledged].sort(byId), 'exactly the acknowledged records');
      assert.equal(journal.writable, true, 'a full disk does not make the journal read-only');
      // Larger than anything a refused batch freed: still no room.
      await assert.rejects(journal.append(JSON.stringify({ id: 0, padding: 'y'.repeat(FILLER_BYTES / 2) })), {
        code: 'ENOSPC',
      });
      assert.deepEqual(replay(await readFile(log), log), onDisk);

      await unlink(filler);
      await unlink(join(mountPoint, 'filler-2')).catch(() => {});
      const later = JSON.stringify({ id: 1_000_000 });
      await journal.append(later);
      await journal.close();
      const reopened = await openJournal({ dir });
      assert.deepEqual(reopened.replayed.payloads, [...[...acknowledged].sort(byId), later]);
      await reopened.journal.close();
    } finally {
      await journal?.close();
    }
  }));

test('a real full disk through HTTP: 503 unavailable for the refused creates, none visible, reads go on, writes resume with room, a restart agrees', (t) =>
  withTmpfs(t, 'animal-store-full-http-', async (mountPoint) => {
    const dataDir = join(mountPoint, 'data');
    const filler = join(mountPoint, 'filler');
    let server: TestServer | undefined;
    try {
      await writeFile(filler, Buffer.alloc(FILLER_BYTES));
      server = await startServer({ dataDir, durability: 'always' });
      const created: number[] = [];
      const refused: Reply[] = [];
      for (let round = 0; refused.length === 0; round += 1) {
        assert.ok(round < 1_000, 'the disk never filled up');
        const replies = await Promise.all(
          Array.from({ length: BATCH }, () =>
            call(server!, 'POST', '/v1/pets', { json: { name: 'x'.repeat(200), categoryId: 1 } }),
          ),
        );
        for (const reply of replies) {
          if (reply.status === 201) created.push((reply.json as { id: number }).id);
          else refused.push(reply);
        }
      }
      for (const reply of refused) {
        assert.equal(reply.status, 503, reply.text);
        assert.equal((reply.json as { code: string }).code, 'unavailable');
        assert.match((reply.json as { message: string }).message, /ENOSPC/);
        assert.ok(Number(reply.headers['retry-after']) >= 1);
      }
      const listedIds = async (target: TestServer): Promise<number[]> => {
        const ids: number[] = [];
        for await (const page of pages(target)) ids.push(...page);
        return ids;
      };
      // Reads keep working, and they show exactly the acknowledged creates.
      assert.deepEqual(
        await listedIds(server),
        [...created].sort((a, b) => a - b),
      );
      assert.equal((await call(server, 'GET', `/v1/pets/${created[0]}`)).status, 200);
      // Take the room the refused batch left (free pages, then the log's last page with small creates),
      // so that an order, a write too, is refused whole: the animal stays available.
      const { bavail, bsize } = await statfs(mountPoint);
      await writeFile(join(mountPoint, 'filler-2'), Buffer.alloc(bavail * bsize)).catch(() => {});
      for (let small = await createSmall(server); small !== undefined; small = await createSmall(server))
        created.push(small);
      const order = await call(server, 'POST', '/v1/store/orders', { json: { petId: created[0] } });
      assert.equal(order.status, 503, order.text);
      assert.equal(
        ((await call(server, 'GET', `/v1/pets/${created[0]}`)).json as { status: string }).status,
        'available',
      );

      await unlink(filler);
      await unlink(join(mountPoint, 'filler-2')).catch(() => {});
      const later = await call(server, 'POST', '/v1/pets', { json: { name: 'After', categoryId: 2 } });
      assert.equal(later.status, 201, later.text);
      created.push((later.json as { id: number }).id);
      await server.close();
      server = await startServer({ dataDir });
      assert.deepEqual(await listedIds(server), created, 'the log on disk holds exactly what was acknowledged');
    } finally {
      await server?.close();
    }
  }));

test('a service SIGKILLed on a full disk starts again on it: it takes over its stale lock, serves every acknowledged animal, answers writes 503, and leaves no temporary file', (t) =>
  withTmpfs(t, 'animal-store-full-restart-', async (mountPoint) => {
    const dataDir = join(mountPoint, 'data');
    const serve = (): Child =>
      runCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
        ANIMAL_STORE_KEYS: `${FULL_KEY}:enterprise:100000000:1000000000`,
      });
    const send = async (apiUrl: string, method: string, path: string, body?: unknown): Promise<Sent> => {
      const response = await fetch(`${apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${FULL_KEY}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, text, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
    };
    const first = serve();
    try {
      const apiUrl = await waitForListening(first);
      const created: number[] = [];
      for (let refused = false, round = 0; !refused; round += 1) {
        assert.ok(round < 1_000, 'the disk never filled up');
        const replies = await Promise.all(
          Array.from({ length: BATCH }, () => send(apiUrl, 'POST', '/pets', { name: 'x'.repeat(200), categoryId: 1 })),
        );
        for (const reply of replies) {
          if (reply.status === 201) created.push((reply.json as { id: number }).id);
          else refused = true;
        }
      }
      // Fill the last free pages too, so the restart finds none.
      const { bavail, bsize } = await statfs(mountPoint);
      await writeFile(join(mountPoint, 'filler'), Buffer.alloc(bavail * bsize)).catch(() => {});
      first.process.kill('SIGKILL');
      await first.exited;

      const second = serve();
      try {
        const againUrl = await waitForListening(second);
        assert.match(second.stderr(), /taking over a stale lock/);
        const listed = await send(againUrl, 'GET', '/pets?limit=1');
        assert.equal(listed.status, 200, listed.text);
        const last = created.at(-1) as number;
        assert.equal(
          (await send(againUrl, 'GET', `/pets/${last}`)).status,
          200,
          'the last acknowledged animal is served',
        );
        // The log's last page may still hold a record or two; past them, writes are refused, not lost.
        let write = await send(againUrl, 'POST', '/pets', { name: 'x'.repeat(200), categoryId: 1 });
        for (let tries = 0; write.status === 201 && tries < 100; tries++)
          write = await send(againUrl, 'POST', '/pets', { name: 'x'.repeat(200), categoryId: 1 });
        assert.equal(write.status, 503, write.text);
        assert.equal((await send(againUrl, 'GET', `/pets/${last}`)).status, 200, 'reads go on after the refusal');
        second.process.kill('SIGTERM');
        assert.equal(await second.exited, 0, second.stderr());
      } finally {
        second.process.kill('SIGKILL');
      }
      const left = await readdir(dataDir);
      assert.deepEqual(
        left.filter((name) => name.endsWith('.tmp')),
        [],
        'no half-written temporary file stays',
      );
    } finally {
      first.process.kill('SIGKILL');
    }
  }));

/** Creates a pet with a one-letter name: its id, or undefined once the store answers 503. */
async function createSmall(server: TestServer): Promise<number | undefined> {
  const reply = await call(server, 'POST', '/v1/pets', { json: { name: 'x', categoryId: 1 } });
  if (reply.status === 503) return undefined;
  assert.equal(reply.status, 201, reply.text);
  return (reply.json as { id: number }).id;
}

/** Every page of GET /v1/pets, following Link, as lists of ids. */
async function* pages(server: TestServer): AsyncGenerator<number[]> {
  let path: string | undefined = '/v1/pets?limit=100';
  while (path !== undefined) {
    const reply = await call(server, 'GET', path);
    assert.equal(reply.status, 200, reply.text);
    yield (reply.json as Array<{ id: number }>).map((pet) => pet.id);
    path = reply.headers['x-next'] as string | undefined;
  }
}
