// README "Rate limits": bearer keys, and 401s that do not tell malformed, unknown and revoked keys apart.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from 'undici';
import { call, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { paddedFieldsArrive, testTransport, undiciOptionsFor } from '../helpers/transport.js';

let server: TestServer;
before(async () => {
  server = await startServer({ limits: { failedAuthCapacity: 1000 } });
});
after(() => server.close());

test('no Authorization header is 401 with a plain Bearer challenge', async () => {
  const reply = await call(server, 'GET', '/v1/pets', { headers: { authorization: '' } });
  assert.equal(reply.status, 401);
  assert.equal(reply.headers['www-authenticate'], 'Bearer realm="animal-store"');
  assert.equal((reply.json as { code: string }).code, 'unauthorized');
});

test('malformed, unknown and wrong-scheme credentials get the same answer byte for byte', async () => {
  const bodies = new Set<string>();
  for (const authorization of [
    'Bearer',
    // Over HTTP/2 a value ending in white space is dropped as malformed: no key at all (the next test).
    ...(paddedFieldsArrive() ? ['Bearer '] : []),
    'Basic dXNlcjpwYXNz',
    'Bearer short',
    'Bearer unknown-key-0123456789',
    `Bearer ${TEST_KEY} extra`,
    `Token ${TEST_KEY}`,
  ]) {
    const reply = await call(server, 'GET', '/v1/pets', { headers: { authorization } });
    assert.equal(reply.status, 401, authorization);
    assert.equal(
      reply.headers['www-authenticate'],
      'Bearer realm="animal-store", error="invalid_token"',
      authorization,
    );
    bodies.add(reply.text);
  }
  assert.equal(bodies.size, 1);
});

test('a tab inside the key, or in place of the space after Bearer, is a malformed credential: the same 401', async () => {
  const plain = await call(server, 'GET', '/v1/pets', { headers: { authorization: 'Bearer unknown-key-0123456789' } });
  for (const authorization of [
    `Bearer ${TEST_KEY.slice(0, 8)}\t${TEST_KEY.slice(8)}`,
    `Bearer\t${TEST_KEY}`,
    `Bearer ${TEST_KEY}\tx`,
  ]) {
    const reply = await call(server, 'GET', '/v1/pets', { headers: { authorization } });
    assert.equal(reply.status, 401, JSON.stringify(authorization));
    assert.equal(reply.text, plain.text, JSON.stringify(authorization));
  }
  // A tab after the key is trailing white space, which HTTP/1.1 strips from every field value (RFC 9110
  // section 5.5). Over HTTP/2 such a value is malformed (RFC 9113 section 8.2.1) and the field is
  // dropped before the service sees it: the request has no key.
  const padded = await call(server, 'GET', '/v1/pets', { headers: { authorization: `Bearer ${TEST_KEY}\t` } });
  if (paddedFieldsArrive()) assert.equal(padded.status, 200);
  else {
    assert.equal(padded.status, 401);
    assert.equal(padded.headers['www-authenticate'], 'Bearer realm="animal-store"');
  }
});

test('the scheme is case-insensitive and may be followed by several spaces', async () => {
  for (const authorization of [`bearer ${TEST_KEY}`, `BEARER   ${TEST_KEY}`]) {
    assert.equal((await call(server, 'GET', '/v1/pets', { headers: { authorization } })).status, 200, authorization);
  }
});

test('a repeated Authorization header is 401 even when both are valid', async () => {
  const reply = await call(server, 'GET', '/v1/pets', {
    headers: { authorization: [`Bearer ${TEST_KEY}`, `Bearer ${TEST_KEY}`] },
  });
  assert.equal(reply.status, 401);
});

test('a key in the query string does not authenticate', async () => {
  const reply = await call(server, 'GET', `/v1/pets?api_key=${TEST_KEY}&access_token=${TEST_KEY}`, {
    headers: { authorization: '' },
  });
  assert.equal(reply.status, 401);
});

test('on one kept-alive connection, every request is checked: a remembered key does not cover a changed or repeated header', async () => {
  // One connection for every request below: a Client keeps a single socket.
  const client = new Client(server.url, { pipelining: 1, ...undiciOptionsFor(testTransport()) });
  const statusOf = async (authorization: string | string[]): Promise<number> => {
    const reply = await client.request({ method: 'GET', path: '/v1/pets?limit=1', headers: { authorization } });
    await reply.body.dump();
    return reply.statusCode;
  };
  try {
    assert.equal(await statusOf(`Bearer ${TEST_KEY}`), 200);
    assert.equal(await statusOf('Bearer unknown-key-0123456789'), 401);
    assert.equal(await statusOf(`Bearer ${TEST_KEY}`), 200);
    assert.equal(await statusOf([`Bearer ${TEST_KEY}`, `Bearer ${TEST_KEY}`]), 401);
    assert.equal(await statusOf(`bearer ${TEST_KEY}`), 200);
    assert.equal(await statusOf(`Bearer ${TEST_KEY}x`), 401);
    assert.equal(await statusOf(`Bearer ${TEST_KEY}`), 200);
  } finally {
    await client.close();
  }
});
