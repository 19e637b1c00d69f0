// Two real service processes on one PostgreSQL database: they share ids, cursors, Idempotency-Keys,
// keys and the rule that a pet is sold once; of two requests with one Idempotency-Key that arrive one
// after the other, the first is carried out; a service killed with SIGKILL under load loses no create it
// acknowledged; a database that cannot be reached at start stops the start with one line.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Agent } from 'undici';
import { sendApi } from '../helpers/api-request.js';
import { type Child, runCli, waitForListening } from '../helpers/child.js';
import { createTestDatabase, postgresSkipReason, queryRows } from '../helpers/postgres.js';

const KEY = 'postgres-instances-key-0123456789';
const skip = await postgresSkipReason();
const agent = new Agent({ keepAliveTimeout: 1000, connections: 256 });

let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const children: Child[] = [];
/** Each service's own data directory, where its in-memory limiter saves its state. */
const dataDirs: string[] = [];
before(async () => {
  if (skip === undefined) database = await createTestDatabase();
});
after(async () => {
  for (const child of children) child.process.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await agent.close();
  await database?.drop();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** A service process on the test database; `keys` false starts it with no configured key. */
function serve(url: string, keys = true): Child {
  const dataDir = mkdtempSync(join(tmpdir(), 'animal-store-pg-instance-'));
  dataDirs.push(dataDir);
  const child = runCli(['serve', '--port', '0', '--database-url', url, '--data-dir', dataDir, '--log-level', 'warn'], {
    ANIMAL_STORE_KEYS: keys ? `${KEY}:enterprise:100000000:1000000000` : '',
    ANIMAL_STORE_DATABASE_URL: '',
  });
  children.push(child);
  return child;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

async function send(
  apiUrl: string,
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
  key = KEY,
): Promise<Answer> {
  const { status, headers: fields, text } = await sendApi(agent, apiUrl, key, method, path, body, headers);
  return { status, headers: fields, json: text === '' ? undefined : JSON.parse(text) };
}

test(
  'two instances started at once on an empty database migrate it once and make one first key between them',
  { skip, timeout: 120_000 },
  async () => {
    const url = (database as { url: string }).url;
    const [a, b] = [serve(url, false), serve(url, false)];
    const [urlA, urlB] = await Promise.all([waitForListening(a), waitForListening(b)]);
    const firstKeys = [a, b]
      .map((child) => /Created a first API key[\s\S]*?\n\n {2}(\S+)/.exec(child.stdout())?.[1])
      .filter((key) => key !== undefined);
    assert.equal(firstKeys.length, 1, `one first key between them, not ${firstKeys.length}`);
    const firstKey = firstKeys[0] as string;
    for (const apiUrl of [urlA, urlB])
      assert.equal((await send(apiUrl, 'GET', '/pets', undefined, {}, firstKey)).status, 200);
    a.process.kill('SIGTERM');
    b.process.kill('SIGTERM');
    assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
  },
);

test(
  'two instances share ids, cursors, totals, Idempotency-Keys, keys and orders',
  { skip, timeout: 120_000 },
  async () => {
    const url = (database as { url: string }).url;
    const [a, b] = [serve(url), serve(url)];
    const [urlA, urlB] = await Promise.all([waitForListening(a), waitForListening(b)]);

    // Ids from one sequence, whichever instance creates.
    const ids: number[] = [];
    for (let i = 0; i < 10; i++) {
      const created = await send(i % 2 === 0 ? urlA : urlB, 'POST', '/pets', { name: `pet ${i}`, categoryId: 1 });
      assert.equal(created.status, 201);
      ids.push((created.json as { id: number }).id);
    }
    assert.deepEqual(
      ids,
      [...ids].sort((x, y) => x - y),
    );
    assert.equal(new Set(ids).size, ids.length);

    // Any code point, U+0000 included, is kept exactly, whichever instance writes and reads it.
    const odd = 'nul\u0000byte \u{1F436}';
    const named = await send(urlA, 'POST', '/pets', { name: odd, categoryId: 1 });
    assert.equal(named.status, 201);
    const read = await send(urlB, 'GET', `/pets/${(named.json as { id: number }).id}`);
    assert.equal((read.json as { name: string }).name, odd);

    // A cursor of one instance is good on the other, and the total is the same on both.
    const first = await send(urlA, 'GET', '/pets?limit=4');
    const next = first.headers['x-next'] as string;
    const second = await send(urlB, 'GET', next.replace(/^\/v1/, ''));
    assert.equal(second.status, 200);
    assert.equal((second.json as Array<{ id: number }>)[0]?.id, (first.json as Array<{ id: number }>)[3]!.id + 1);
    assert.equal(first.headers['x-total-count'], second.headers['x-total-count']);

    // An Idempotency-Key in flight on A is seen by B (409); once A has answered, B replays A's answer.
    const port = Number(new URL(urlA).port);
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const body = '{"name":"Slow","categoryId":2}';
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
        `Idempotency-Key: shared-1\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(body.slice(0, 5));
    // A claims the key when the request's head has arrived; B is asked once the claim is in the table.
    while ((await queryRows(url, "SELECT 1 FROM idempotency_claims WHERE key = 'shared-1'")).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 10));
    const repeat = await send(urlB, 'POST', '/pets', JSON.parse(body), { 'idempotency-key': 'shared-1' });
    assert.equal(repeat.status, 409, JSON.stringify(repeat.json));
    socket.write(body.slice(5));
    await once(socket, 'close');
    assert.match(received, /^HTTP\/1\.1 201 /);
    const replayed = await send(urlB, 'POST', '/pets', JSON.parse(body), { 'idempotency-key': 'shared-1' });
    assert.equal(replayed.status, 201);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    // Repeats of it sent together to both: each gets its answer, though one at a time holds the claim.
    const together = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        send(i % 2 === 0 ? urlA : urlB, 'POST', '/pets', JSON.parse(body), { 'idempotency-key': 'shared-1' }),
      ),
    );
    assert.deepEqual(
      together.map((answer) => `${answer.status} ${answer.headers['idempotent-replayed']}`),
      Array.from({ length: 12 }, () => '201 true'),
    );

    // Orders racing for one pet on both instances: exactly one wins.
    const pet = (await send(urlA, 'POST', '/pets', { name: 'Contested', categoryId: 3 })).json as { id: number };
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(i % 2 === 0 ? urlA : urlB, 'POST', '/store/orders', { petId: pet.id })),
    );
    assert.deepEqual(attempts.map((attempt) => attempt.status).sort(), [201, ...Array.from({ length: 19 }, () => 409)]);
    assert.equal(((await send(urlB, 'GET', `/pets/${pet.id}`)).json as { status: string }).status, 'pending');

    // A key created by the CLI against the database is accepted by both; revoked, refused by both.
    const created = runCli(['keys', 'create', '--plan', 'pro', '--database-url', url]);
    assert.equal(await created.exited, 0, created.stderr());
    const newKey = /\n\n {2}(\S+)\n/.exec(created.stdout())?.[1] as string;
    const id = /Created key (key_[0-9a-f]+)/.exec(created.stdout())?.[1] as string;
    const waitFor = async (status: number): Promise<void> => {
      for (const apiUrl of [urlA, urlB]) {
        let answer = await send(apiUrl, 'GET', '/pets', undefined, {}, newKey);
        for (let tries = 0; answer.status !== status && tries < 100; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          answer = await send(apiUrl, 'GET', '/pets', undefined, {}, newKey);
        }
        assert.equal(answer.status, status);
      }
    };
    await waitFor(200);
    const revoked = runCli(['keys', 'revoke', id, '--database-url', url]);
    assert.equal(await revoked.exited, 0, revoked.stderr());
    await waitFor(401);

    a.process.kill('SIGTERM');
    b.process.kill('SIGTERM');
    assert.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
  },
);

test(
  'of two requests with one Idempotency-Key pipelined on a connection, the first is carried out, never the second',
  { skip, timeout: 120_000 },
  async () => {
    const url = (database as { url: string }).url;
    const service = serve(url);
    const port = Number(new URL(await waitForListening(service)).port);
    const body = '{"name":"Piped","categoryId":1}';
    const request = (key: string, last: boolean): string =>
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
      `Idempotency-Key: ${key}\r\nContent-Length: ${body.length}\r\n${last ? 'Connection: close\r\n' : ''}\r\n${body}`;
    // Sent in one write, the two arrive in one read and are claimed in the same turn: the claims then
    // travel on two of the pool's connections, and the database may decide the second one first.
    for (let trial = 0; trial < 30; trial++) {
      const key = `pipelined-${trial}`;
      const socket = connect(port, '127.0.0.1');
      await once(socket, 'connect');
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
      socket.write(request(key, false) + request(key, true));
      await once(socket, 'close');
      const [first, second] = received.split(/(?=HTTP\/1\.1 )/) as [string, string];
      assert.match(first, /^HTTP\/1\.1 201 /, `trial ${trial}: the first is carried out: ${received}`);
      assert.doesNotMatch(first, /idempotent-replayed/i, `trial ${trial}: the first is not a replay`);
      // The second is decided while the first is in flight (409); on a machine slow enough that the
      // first's change is stored before the second's lookup, it gets the first's answer, replayed.
      if (!/^HTTP\/1\.1 409 /.test(second)) {
        assert.match(second, /^HTTP\/1\.1 201 [\s\S]*idempotent-replayed: true/i, `trial ${trial}: ${received}`);
        assert.equal(/location: (\S+)/i.exec(second)?.[1], /location: (\S+)/i.exec(first)?.[1]);
      }
    }
    service.process.kill('SIGTERM');
    assert.equal(await service.exited, 0);
  },
);

test(
  'beside PostgreSQL, the in-memory limiter keeps a key’s day across a graceful restart in its data directory',
  { skip, timeout: 120_000 },
  async () => {
    const url = (database as { url: string }).url;
    const dayKey = 'postgres-instances-day-key-0123456789';
    const dataDir = mkdtempSync(join(tmpdir(), 'animal-store-pg-limits-'));
    dataDirs.push(dataDir);
    const start = (): Child => {
      const child = runCli(
        ['serve', '--port', '0', '--database-url', url, '--data-dir', dataDir, '--log-level', 'warn'],
        {
          ANIMAL_STORE_KEYS: `${dayKey}:enterprise:100:5`,
          ANIMAL_STORE_DATABASE_URL: '',
        },
      );
      children.push(child);
      return child;
    };
    const first = start();
    const firstUrl = await waitForListening(first);
    for (let i = 0; i < 3; i++) assert.equal((await send(firstUrl, 'GET', '/pets', undefined, {}, dayKey)).status, 200);
    first.process.kill('SIGTERM');
    assert.equal(await first.exited, 0);
    const again = start();
    const againUrl = await waitForListening(again);
    const answer = await send(againUrl, 'GET', '/pets', undefined, {}, dayKey);
    assert.equal(answer.headers['x-ratelimit-remaining'], '1');
    again.process.kill('SIGTERM');
    assert.equal(await again.exited, 0);
  },
);

test(
  'no create answered 201 is lost when a service on PostgreSQL is SIGKILLed under load',
  { skip, timeout: 120_000 },
  async () => {
    const url = (database as { url: string }).url;
    const service = serve(url);
    const apiUrl = await waitForListening(service);
    const acknowledged = new Map<number, string>();
    let stop = false;
    const worker = async (n: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `load ${n}-${i}`;
        try {
          const answer = await send(apiUrl, 'POST', '/pets', { name, categoryId: 7 });
          if (answer.status === 201) acknowledged.set((answer.json as { id: number }).id, name);
        } catch {
          return; // The service died: this request's answer never came, so it was not acknowledged.
        }
      }
    };
    const workers = Array.from({ length: 64 }, (_, n) => worker(n));
    while (acknowledged.size < 300) await new Promise((resolve) => setTimeout(resolve, 10));
    service.process.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    await service.exited;

    const again = serve(url);
    const againUrl = await waitForListening(again);
    for (const [id, name] of acknowledged) {
      const found = await send(againUrl, 'GET', `/pets/${id}`);
      assert.equal(found.status, 200, `pet ${id} was acknowledged and is gone`);
      assert.equal((found.json as { name: string }).name, name);
    }
    const after = (await send(againUrl, 'POST', '/pets', { name: 'after', categoryId: 7 })).json as { id: number };
    assert.ok(after.id > Math.max(...acknowledged.keys()), 'ids are never handed out twice');
    again.process.kill('SIGTERM');
    assert.equal(await again.exited, 0);
  },
);

test(
  'an Idempotency-Key held by an instance that is SIGKILLed mid-request is free on the other within the lease, and the retry is carried out',
  { skip, timeout: 120_000 },
  async () => {
    const url = (database as { url: string }).url;
    const [a, b] = [serve(url), serve(url)];
    const [urlA, urlB] = await Promise.all([waitForListening(a), waitForListening(b)]);
    const socket = connect(Number(new URL(urlA).port), '127.0.0.1');
    await once(socket, 'connect');
    socket.on('error', () => {}); // reset when A dies
    const body = '{"name":"Orphan","categoryId":2}';
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n` +
        `Idempotency-Key: orphan-1\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    while ((await queryRows(url, "SELECT 1 FROM idempotency_claims WHERE key = 'orphan-1'")).length === 0)
      await new Promise((resolve) => setTimeout(resolve, 10));
    a.process.kill('SIGKILL');
    await a.exited;
    // Until the dead claim's lease ends the key is in flight (409); then the retry goes through. The
    // lease is 15 s: a claim that lasted as long as the old two minutes would outlast this test.
    const started = Date.now();
    let retry = await send(urlB, 'POST', '/pets', JSON.parse(body), { 'idempotency-key': 'orphan-1' });
    while (retry.status === 409 && Date.now() - started < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      retry = await send(urlB, 'POST', '/pets', JSON.parse(body), { 'idempotency-key': 'orphan-1' });
    }
    assert.equal(retry.status, 201, JSON.stringify(retry.json));
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'carried out, not replayed: the first never was');
    b.process.kill('SIGTERM');
    assert.equal(await b.exited, 0);
  },
);

test(
  'a database that cannot be reached stops the start with one line naming it and the cause, exit 1',
  { timeout: 120_000 },
  async () => {
    const child = runCli(
      ['serve', '--port', '0', '--database-url', 'postgres://someone:secret-password@127.0.0.1:1/animals'],
      {
        ANIMAL_STORE_KEYS: `${KEY}:pro`,
      },
    );
    assert.equal(await child.exited, 1);
    const lines = child.stderr().trim().split('\n');
    assert.equal(lines.length, 1, child.stderr());
    assert.match(lines[0] as string, /cannot reach PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/animals: .*ECONNREFUSED/);
    assert.doesNotMatch(child.stderr(), /secret-password/);
  },
);
