// A non-default base path (README "How the API behaves": "configurable, default /v1"): every route, link and
// header that names a path follows it, and the default path is then outside the API.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';
import { call, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startServer({ basePath: '/api/v2' });
});
after(() => server.close());

test('the API, its links and its OpenAPI document live under the configured base path', async () => {
  const created = await call(server, 'POST', '/api/v2/pets', { json: { name: 'Based', categoryId: 1 } });
  assert.equal(created.status, 201, created.text);
  const { id } = created.json as { id: number };
  assert.equal(created.headers.location, `/api/v2/pets/${id}`);
  await call(server, 'POST', '/api/v2/pets', { json: { name: 'Second', categoryId: 1 } });

  const page = await call(server, 'GET', '/api/v2/pets?limit=1');
  assert.equal(page.status, 200);
  assert.match(String(page.headers.link), /^<\/api\/v2\/pets\?limit=1&cursor=[^>]+>; rel="next"$/);
  assert.equal(page.headers['x-next'], String(page.headers.link).slice(1, String(page.headers.link).indexOf('>')));
  const next = await call(server, 'GET', String(page.headers['x-next']));
  assert.equal(next.status, 200);

  const one = await call(server, 'GET', `/api/v2/pets/${id}`);
  assert.equal(one.headers.link, '</api/v2/pets>; rel="successor-version"');

  const openapi = await call(server, 'GET', '/api/v2/openapi.json', { headers: { authorization: '' } });
  assert.equal(openapi.status, 200);
  assert.equal((openapi.json as { openapi: string }).openapi, '3.1.0');
  assert.deepEqual(
    (openapi.json as { servers: Array<{ url: string }> }).servers.map((entry) => entry.url),
    ['https://api.animal-store.example/api/v2', 'https://staging.animal-store.example/api/v2'],
    'the placeholder servers follow the base path',
  );
});

test('listen() gives the API address a client takes, base path included', async () => {
  const app = await createAnimalStore({ basePath: '/api/v2', logger: QUIET_LOGGER });
  try {
    const { url, apiUrl } = await app.listen({ port: 0 });
    assert.equal(apiUrl, `${url}/api/v2`);
  } finally {
    await app.close();
  }
});

test('the default /v1 is then outside the API: 404 without a key', async () => {
  for (const path of ['/v1/pets', '/v1/openapi.json', '/v1', '/api/v1/pets']) {
    const reply = await call(server, 'GET', path, { headers: { authorization: '' } });
    assert.equal(reply.status, 404, path);
    assert.equal((reply.json as { code: string }).code, 'not_found', path);
  }
  const unauthorized = await call(server, 'GET', '/api/v2/pets', { headers: { authorization: '' } });
  assert.equal(unauthorized.status, 401);
  assert.equal((await call(server, 'GET', '/healthz', { headers: { authorization: '' } })).status, 200);
});

test('mounted in a host server under a prefix: the host keeps its own paths, and links carry the prefix', async () => {
  const app = await createAnimalStore({
    basePath: '/animals/v1',
    keys: [{ key: TEST_KEY, plan: 'pro' }],
    logger: QUIET_LOGGER,
  });
  const host = createServer((req, res) => {
    if (req.url?.startsWith('/animals/') === true) app.handler(req, res);
    else res.end('the host program');
  }).listen(0, '127.0.0.1');
  await once(host, 'listening');
  try {
    const url = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
    const auth = { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' };
    const created = await request(`${url}/animals/v1/pets`, {
      method: 'POST',
      headers: auth,
      body: '{"name":"Mounted","categoryId":1}',
    });
    assert.equal(created.statusCode, 201);
    assert.equal(created.headers.location, '/animals/v1/pets/1');
    await created.body.dump();
    const again = await request(`${url}/animals/v1/pets`, {
      method: 'POST',
      headers: auth,
      body: '{"name":"Twice","categoryId":1}',
    });
    await again.body.dump();
    const page = await request(`${url}/animals/v1/pets?limit=1`, { headers: auth });
    assert.match(String(page.headers.link), /^<\/animals\/v1\/pets\?limit=1&cursor=/);
    await page.body.dump();
    assert.equal(await (await request(`${url}/elsewhere`)).body.text(), 'the host program');
  } finally {
    host.close();
    await app.close();
  }
});
