// /readyz: 200 {"status":"ready"} while the service accepts work and every backing server answers, 503
// with the Error body otherwise (saying which is not ready) and while stopping. No key, no limits.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { request } from 'undici';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';
import { serveDispatcher } from '../helpers/dispatcher.js';
import { call, startServer } from '../helpers/server.js';

test('readyz answers 200 {"status":"ready"} without a key or rate-limit headers; HEAD too; other methods 405', async () => {
  const server = await startServer({ onDisk: true });
  try {
    const ready = await call(server, 'GET', '/readyz', { headers: { authorization: '' } });
    assert.equal(ready.status, 200);
    assert.equal(ready.text, '{"status":"ready"}');
    assert.equal(ready.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(ready.headers['x-ratelimit-limit'], undefined);
    const head = await call(server, 'HEAD', '/readyz', { headers: { authorization: '' } });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    const post = await call(server, 'POST', '/readyz', { headers: { authorization: '' } });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
    assert.equal((post.json as { code: string }).code, 'method_not_allowed');
  } finally {
    await server.close();
  }
});

test('while the service stops, readyz answers 503 unavailable and closes the connection', async () => {
  const app = await createAnimalStore({ logger: QUIET_LOGGER, createFirstKey: false });
  const host = createServer(app.handler).listen(0, '127.0.0.1');
  await once(host, 'listening');
  try {
    await app.close();
    const reply = await request(`http://127.0.0.1:${(host.address() as AddressInfo).port}/readyz`);
    assert.equal(reply.statusCode, 503);
    assert.equal(reply.headers.connection, 'close');
    const body = (await reply.body.json()) as { code: string; status: number; message: string };
    assert.deepEqual([body.code, body.status], ['unavailable', 503]);
    assert.match(body.message, /stopping/);
  } finally {
    host.close();
  }
});

test('readyz answers 503 naming the backing server that is not ready, and 200 again once it is', async () => {
  let down: string | undefined = 'the database at 127.0.0.1:5432 is unreachable (ECONNREFUSED)';
  const served = await serveDispatcher({
    checkReady: async () => {
      if (down !== undefined) throw new Error(down);
    },
  });
  try {
    const url = `${served.origin}/readyz`;
    const notReady = await request(url);
    assert.equal(notReady.statusCode, 503);
    const body = (await notReady.body.json()) as { code: string; message: string };
    assert.equal(body.code, 'unavailable');
    assert.match(body.message, /not ready: the database at 127\.0\.0\.1:5432 is unreachable/);
    down = undefined;
    const ready = await request(url);
    assert.equal(ready.statusCode, 200);
    assert.equal(await ready.body.text(), '{"status":"ready"}');
  } finally {
    served.close();
  }
});
