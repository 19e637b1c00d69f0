// Black-box tests of the three pet operations against a real server on an ephemeral port.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';
import { sendRaw, statusesIn } from '../helpers/raw-http.js';
import { call, createPet, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { rawHttp1Only } from '../helpers/transport.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const JSON_TYPE = 'application/json; charset=utf-8';

test('an empty store lists as a bare empty array with X-Total-Count 0 and no Link', async () => {
  const reply = await call(server, 'GET', '/v1/pets?status=pending');
  assert.equal(reply.status, 200);
  assert.equal(reply.text, '[]');
  assert.equal(reply.headers['content-type'], JSON_TYPE);
  assert.equal(reply.headers['x-total-count'], '0');
  assert.equal(reply.headers.link, undefined);
  assert.equal(reply.headers['x-next'], undefined);
  assert.match(String(reply.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/);
});

test('POST /v1/pets answers 201 with the Pet in key order, status available, and Location', async () => {
  const reply = await call(server, 'POST', '/v1/pets', { json: { categoryId: 3, name: ' Rex ' } });
  assert.equal(reply.status, 201);
  assert.equal(reply.headers['content-type'], JSON_TYPE);
  const pet = reply.json as { id: number };
  assert.equal(reply.text, `{"id":${pet.id},"name":" Rex ","categoryId":3,"status":"available"}`);
  assert.equal(reply.headers.location, `/v1/pets/${pet.id}`);
});

test('a body of ASCII and one of other characters both go out as UTF-8, their Content-Length in bytes', async () => {
  for (const name of ['Rex', 'Rüde 🐕 ß']) {
    const created = await call(server, 'POST', '/v1/pets', { json: { categoryId: 3, name } });
    const id = (created.json as { id: number }).id;
    const expected = `{"id":${id},"name":"${name}","categoryId":3,"status":"available"}`;
    for (const reply of [created, await call(server, 'GET', `/v1/pets/${id}`)]) {
      assert.equal(reply.text, expected);
      assert.equal(reply.headers['content-length'], String(Buffer.byteLength(expected)));
    }
  }
});

test('categoryId 3.0 and 3e0 are the number 3; duplicate members keep the last', async () => {
  for (const body of [
    '{"name":"a","categoryId":3.0}',
    '{"name":"a","categoryId":3e0}',
    '{"name":"a","categoryId":"x","categoryId":3}',
  ]) {
    const reply = await call(server, 'POST', '/v1/pets', { body, headers: { 'content-type': 'application/json' } });
    assert.equal(reply.status, 201, body);
    assert.equal((reply.json as { categoryId: number }).categoryId, 3);
  }
});

test('GET /v1/pets/{petId} answers the pet with Deprecation, Sunset and the successor Link', async () => {
  const pet = await createPet(server, { name: 'Tom', categoryId: 2, status: 'sold' });
  const reply = await call(server, 'GET', `/v1/pets/${pet.id}`);
  assert.equal(reply.status, 200);
  assert.deepEqual(reply.json, pet);
  assert.equal(reply.headers.deprecation, '@1795305600');
  assert.equal(reply.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT');
  assert.equal(reply.headers.link, '</v1/pets>; rel="successor-version"');
});

test('an unknown pet is 404 not_found, and a malformed petId 400, both with the deprecation headers', async () => {
  const missing = await call(server, 'GET', '/v1/pets/999999');
  assert.equal(missing.status, 404);
  assert.equal((missing.json as { code: string }).code, 'not_found');
  assert.equal(missing.headers.deprecation, '@1795305600');
  for (const bad of ['abc', '0', '01', '+1', '1.5', '1e3', '0x10', '%20%31', '%31', '9007199254740992']) {
    const reply = await call(server, 'GET', `/v1/pets/${bad}`);
    assert.equal(reply.status, 400, bad);
    assert.deepEqual(
      reply.json,
      {
        code: 'invalid_parameter',
        message: `"petId" must be a whole number from 1 to 9007199254740991 in plain decimal digits`,
        status: 400,
        details: [{ path: 'petId', message: '"petId" must match ^[1-9][0-9]*$ and be at most 9007199254740991' }],
      },
      bad,
    );
    assert.equal(reply.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT');
  }
});

test('a 401 on the deprecated route carries the deprecation headers too; other routes never do', async () => {
  const unknownKey = await call(server, 'GET', '/v1/pets/1', {
    headers: { authorization: 'Bearer unknown-key-0123456789' },
  });
  assert.equal(unknownKey.status, 401);
  assert.equal(unknownKey.headers.deprecation, '@1795305600');
  assert.equal(unknownKey.headers.sunset, 'Thu, 05 Dec 2030 00:00:00 GMT');
  assert.equal(unknownKey.headers.link, '</v1/pets>; rel="successor-version"');
  const noKey = await call(server, 'HEAD', '/v1/pets/abc', { headers: { authorization: '' } });
  assert.equal(noKey.status, 401);
  assert.equal(noKey.headers.deprecation, '@1795305600');
  for (const path of ['/v1/pets', '/v1/store/orders/1', '/v1/nothing']) {
    const reply = await call(server, 'GET', path, { headers: { authorization: '' } });
    assert.equal(reply.status, 401, path);
    assert.equal(reply.headers.deprecation, undefined, path);
    assert.equal(reply.headers.sunset, undefined, path);
  }
});

test('HEAD answers like GET without a body', async () => {
  const pet = await createPet(server, { name: 'Head', categoryId: 1 });
  const get = await call(server, 'GET', `/v1/pets/${pet.id}`);
  const head = await call(server, 'HEAD', `/v1/pets/${pet.id}`);
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.equal(head.headers['content-length'], get.headers['content-length']);
  assert.equal(head.headers.deprecation, '@1795305600');
  const list = await call(server, 'HEAD', '/v1/pets');
  assert.equal(list.status, 200);
  assert.equal(list.text, '');
});

test('a route with the wrong method is 405 with Allow listing HEAD wherever GET is', async () => {
  const onList = await call(server, 'DELETE', '/v1/pets');
  assert.equal(onList.status, 405);
  assert.equal(onList.headers.allow, 'GET, HEAD, POST');
  assert.equal((onList.json as { code: string }).code, 'method_not_allowed');
  const onPet = await call(server, 'PUT', '/v1/pets/1', { json: {} });
  assert.equal(onPet.status, 405);
  assert.equal(onPet.headers.allow, 'GET, HEAD');
});

test('paths under the base path that are not routes are 404 after authentication', async () => {
  for (const path of ['/v1', '/v1/', '/v1/pets/', '/v1//pets', '/v1/pets/1/x', '/v1/nothing']) {
    const reply = await call(server, 'GET', path);
    assert.equal(reply.status, 404, path);
    assert.equal((reply.json as { code: string }).code, 'not_found');
    const anonymous = await call(server, 'GET', path, { headers: { authorization: '' } });
    assert.equal(anonymous.status, 401, `${path} without a key`);
  }
});

test('paths outside the base path are 404 without a key', async () => {
  for (const path of ['/', '/V1/pets', '/v1pets', '/pets', '/v2/pets']) {
    const reply = await call(server, 'GET', path, { headers: { authorization: '' } });
    assert.equal(reply.status, 404, path);
    assert.equal(reply.headers['content-type'], JSON_TYPE);
  }
});

test('the list query: limit 1..100 in plain digits, one of the statuses, no repeats', async () => {
  for (const query of [
    'limit=0',
    'limit=101',
    'limit=abc',
    'limit=01',
    'limit=',
    'limit=1.5',
    'limit=-1',
    'limit=1&limit=2',
    'status=lost',
    'status=',
    'status=sold&status=sold',
    'cursor=a&cursor=b',
  ]) {
    const reply = await call(server, 'GET', `/v1/pets?${query}`);
    assert.equal(reply.status, 400, query);
    assert.equal((reply.json as { code: string }).code, 'invalid_query', query);
  }
  const message = (await call(server, 'GET', '/v1/pets?limit=500')).json as { message: string };
  assert.equal(message.message, 'Query parameter "limit" must be an integer from 1 to 100 in plain decimal digits');
  const ignored = await call(server, 'GET', '/v1/pets?Limit=0&foo=bar&STATUS=x');
  assert.equal(ignored.status, 200);
});

test('healthz answers 200 {"status":"ok"} without a key; other methods 405', async () => {
  const reply = await call(server, 'GET', '/healthz', { headers: { authorization: '' } });
  assert.equal(reply.status, 200);
  assert.equal(reply.text, '{"status":"ok"}');
  const post = await call(server, 'POST', '/healthz', { headers: { authorization: '' } });
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
});

test('while the service stops, healthz answers 503 with the Error body and API requests 503 unavailable', async () => {
  // An embedding program's own server keeps the listener after close(): it sees what a draining one answers.
  const store = await createAnimalStore({
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 1000, perDay: 10_000 }],
    logger: QUIET_LOGGER,
  });
  const host = createServer(store.handler).listen(0, '127.0.0.1');
  await once(host, 'listening');
  try {
    await store.close();
    const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const health = await request(`${url}/healthz`);
    assert.equal(health.statusCode, 503);
    assert.equal(health.headers['content-type'], 'application/json; charset=utf-8');
    const body = (await health.body.json()) as { code: string; status: number; message: string };
    assert.equal(body.code, 'unavailable');
    assert.equal(body.status, 503);
    assert.match(body.message, /stopping/);
    const api = await request(`${url}/v1/pets`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    assert.equal(api.statusCode, 503);
    assert.equal(((await api.body.json()) as { code: string }).code, 'unavailable');
  } finally {
    host.close();
  }
});

test('while a request is still in flight, a stopping service keeps its port and answers new connections 503, then closes it', async () => {
  const store = await createAnimalStore({
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 1000, perDay: 10_000 }],
    logger: QUIET_LOGGER,
  });
  const { url } = await store.listen({ port: 0 });
  // A create whose body is still on its way when the stop begins: it is in flight.
  const body = '{"name":"Last","categoryId":1}';
  const slow = connect(Number(new URL(url).port), '127.0.0.1');
  let slowAnswer = '';
  slow.on('data', (chunk: Buffer) => {
    slowAnswer += chunk.toString();
  });
  slow.write(
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
  );
  while (!slowAnswer.includes('100 Continue')) await once(slow, 'data');
  slow.write(body.slice(0, 5));

  const closed = store.close();
  const health = await request(`${url}/healthz`);
  assert.equal(health.statusCode, 503);
  assert.equal(health.headers.connection, 'close');
  assert.equal(((await health.body.json()) as { code: string }).code, 'unavailable');
  const api = await request(`${url}/v1/pets`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
  assert.equal(api.statusCode, 503);
  assert.equal(api.headers['retry-after'], '1');
  await api.body.dump();

  slow.end(body.slice(5));
  await once(slow, 'close');
  assert.match(slowAnswer, /HTTP\/1\.1 201 /, 'the request in flight is carried out');
  await closed;
  await assert.rejects(
    request(`${url}/healthz`),
    /ECONNREFUSED/,
    'once the last request is answered, the port is closed',
  );
});

test('X-Request-Id is echoed when it is 1 to 128 safe characters, replaced otherwise', async () => {
  const echoed = await call(server, 'GET', '/v1/pets', { headers: { 'x-request-id': 'abc.DEF_1:2-3' } });
  assert.equal(echoed.headers['x-request-id'], 'abc.DEF_1:2-3');
  for (const bad of ['has space', 'x'.repeat(129), 'semi;colon']) {
    const replaced = await call(server, 'GET', '/v1/pets', { headers: { 'x-request-id': bad } });
    assert.notEqual(replaced.headers['x-request-id'], bad);
    assert.match(String(replaced.headers['x-request-id']), /^[A-Za-z0-9._:-]{1,128}$/);
  }
});

test(
  'dot segments are not removed: /v1/pets/.. and /v1/pets/%2e%2e are malformed petIds',
  { skip: rawHttp1Only() },
  async () => {
    // Sent raw: a WHATWG URL client would resolve the dot segments before sending.
    for (const path of ['/v1/pets/..', '/v1/pets/%2e%2e', '/v1/pets/.']) {
      const raw = await sendRaw(
        server.url,
        `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nConnection: close\r\n\r\n`,
      );
      assert.deepEqual(statusesIn(raw), [400], path);
      assert.match(raw, /"code":"invalid_parameter"/);
    }
    const up = await sendRaw(
      server.url,
      `GET /v1/pets/../pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nConnection: close\r\n\r\n`,
    );
    assert.deepEqual(statusesIn(up), [404]);
  },
);
