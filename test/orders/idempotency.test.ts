// README "Store orders (beta) and safe retries" against a real server: a retried POST never creates twice.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as connectHttp2 } from 'node:http2';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { call, createPet, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { connectRaw, paddedFieldsArrive, TEST_CA, testTransport, undiciHttp2Cannot } from '../helpers/transport.js';

const clock = new ManualClock(Date.UTC(2027, 0, 1));
const OTHER_KEY = 'another-test-key-0123456789';
let server: TestServer;
before(async () => {
  server = await startServer({
    clock,
    keys: [
      { key: TEST_KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 },
      { key: OTHER_KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 },
    ],
  });
});
after(() => server.close());

const post = (path: string, body: string, key: string, apiKey = TEST_KEY) =>
  call(server, 'POST', path, {
    body,
    headers: { 'content-type': 'application/json', 'idempotency-key': key, authorization: `Bearer ${apiKey}` },
  });

test('a repeat with the same key and an equal JSON body replays the answer and creates nothing', async () => {
  const first = await post('/v1/pets', '{"name":"Rex","categoryId":3}', 'create-rex-1');
  assert.equal(first.status, 201);
  assert.equal(first.headers['idempotent-replayed'], undefined);
  const count = Number((await call(server, 'GET', '/v1/pets')).headers['x-total-count']);
  for (const body of [
    '{"name":"Rex","categoryId":3}',
    '{ "categoryId" : 3.0, "name" : "R\\u0065x" }',
    '{"categoryId":3e0,"name":"Rex"}',
  ]) {
    const again = await post('/v1/pets', body, 'create-rex-1');
    assert.equal(again.status, 201, body);
    assert.equal(again.text, first.text);
    assert.equal(again.headers.location, first.headers.location);
    assert.equal(again.headers['idempotent-replayed'], 'true');
  }
  assert.equal(Number((await call(server, 'GET', '/v1/pets')).headers['x-total-count']), count);
});

test('the same key with a different body is 409; keys are scoped per API key and per route', async () => {
  await post('/v1/pets', '{"name":"A","categoryId":1}', 'shared-key');
  const different = await post('/v1/pets', '{"name":"B","categoryId":1}', 'shared-key');
  assert.equal(different.status, 409);
  assert.equal((different.json as { code: string }).code, 'conflict');
  const otherApiKey = await post('/v1/pets', '{"name":"B","categoryId":1}', 'shared-key', OTHER_KEY);
  assert.equal(otherApiKey.status, 201, 'another API key has its own keys');
  const pet = await createPet(server, { name: 'orderable', categoryId: 1 });
  const otherRoute = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'shared-key');
  assert.equal(otherRoute.status, 201, 'another route has its own keys');
});

test('a body that fails validation, or a failed first attempt, is not remembered', async () => {
  const invalid = await post('/v1/pets', '{"name":"","categoryId":1}', 'retry-after-400');
  assert.equal(invalid.status, 400);
  const valid = await post('/v1/pets', '{"name":"fixed","categoryId":1}', 'retry-after-400');
  assert.equal(valid.status, 201);
  const missing = await post('/v1/store/orders', '{"petId":999999}', 'retry-after-404');
  assert.equal(missing.status, 404);
  const pet = await createPet(server, { name: 'late', categoryId: 1 });
  const stillMissing = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'retry-after-404');
  assert.equal(stillMissing.status, 201, 'another body after a failure is a new request');
});

test('a malformed or repeated Idempotency-Key is 400 invalid_header', async () => {
  // Sent as ' ': over HTTP/2 a field of white space alone is dropped before the service sees it.
  for (const key of [...(paddedFieldsArrive() ? [''] : []), 'x'.repeat(256), 'has space', 'tab\there', 'ünicode']) {
    const reply = await call(server, 'POST', '/v1/pets', {
      body: '{"name":"a","categoryId":1}',
      headers: { 'content-type': 'application/json', 'idempotency-key': key || ' ' },
    }).catch(() => undefined);
    if (reply === undefined) continue; // the client refused to send it
    assert.equal(reply.status, 400, JSON.stringify(key));
    assert.equal((reply.json as { code: string }).code, 'invalid_header');
  }
  // undici joins a repeated field into one over HTTP/2 ("a, a", malformed for another reason):
  // test/tls/tls.test.ts sends the repeat over HTTP/2 with curl.
  if (undiciHttp2Cannot('joins a repeated field') === false) {
    const repeated = await call(server, 'POST', '/v1/pets', {
      body: '{"name":"a","categoryId":1}',
      headers: { 'content-type': 'application/json', 'idempotency-key': ['a', 'a'] },
    });
    assert.equal(repeated.status, 400);
    assert.equal((repeated.json as { code: string }).code, 'invalid_header');
  }
  assert.equal((await post('/v1/pets', '{"name":"a","categoryId":1}', 'x'.repeat(255))).status, 201);
});

test('a remembered answer expires after 24 hours', async () => {
  const first = await post('/v1/pets', '{"name":"day","categoryId":1}', 'expiring-key');
  clock.advance(24 * 60 * 60 * 1000 - 1);
  assert.equal(
    (await post('/v1/pets', '{"name":"day","categoryId":1}', 'expiring-key')).headers['idempotent-replayed'],
    'true',
  );
  clock.advance(1);
  const after = await post('/v1/pets', '{"name":"day","categoryId":1}', 'expiring-key');
  assert.equal(after.status, 201);
  assert.equal(after.headers['idempotent-replayed'], undefined);
  assert.notEqual(after.headers.location, first.headers.location);
});

test('an order replay answers the original order even after it moved on', async () => {
  const pet = await createPet(server, { name: 'replayed', categoryId: 1 });
  const placed = await post('/v1/store/orders', JSON.stringify({ petId: pet.id }), 'order-once');
  const orderId = (placed.json as { id: number }).id;
  await call(server, 'DELETE', `/v1/store/orders/${orderId}`);
  const again = await post('/v1/store/orders', `{ "petId": ${pet.id}.0 }`, 'order-once');
  assert.equal(again.status, 201);
  assert.equal(again.text, placed.text);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(Number((await call(server, 'GET', '/v1/store/orders')).headers['x-total-count']) >= 1, true);
});

/** What the slow first request was answered: its status, and whether it said it was a replay. */
interface SlowAnswer {
  status: number;
  replayed: boolean;
}

/**
 * Opens a connection and sends a POST's head with `Expect: 100-continue`; once the server has read the head
 * (its 100 Continue is the proof, so no sleep is needed) sends the first `sent` bytes of `body`. `finish`
 * sends the rest and resolves with the answer. Over HTTP/2 (the h2 transport) the same on a stream.
 */
async function startSlowPost(
  body: string,
  idempotencyKey: string,
  sent: number,
): Promise<{ finish(): Promise<SlowAnswer> }> {
  if (testTransport() === 'h2') return startSlowHttp2Post(body, idempotencyKey, sent);
  const socket = connectRaw(server.url);
  await once(socket, 'connect');
  let received = '';
  const headRead = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
      if (received.includes('100 Continue\r\n\r\n')) resolve();
    });
  });
  socket.write(
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nContent-Type: application/json\r\n` +
      `Idempotency-Key: ${idempotencyKey}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
  );
  await headRead;
  socket.write(body.slice(0, sent));
  return {
    async finish() {
      // Not a half-close: Node's server takes a client's FIN as the client gone, and an answer that
      // needs a database round trip would come after it. The server closes after answering (Connection: close).
      socket.write(body.slice(sent));
      await once(socket, 'close');
      const answer = received.slice(received.indexOf('100 Continue\r\n\r\n') + '100 Continue\r\n\r\n'.length);
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1];
      assert.ok(status !== undefined, `an HTTP/1.1 answer: ${answer}`);
      return { status: Number(status), replayed: /idempotent-replayed/i.test(answer) };
    },
  };
}

/** startSlowPost over HTTP/2: a stream whose body is half sent once the server asked for it. */
async function startSlowHttp2Post(
  body: string,
  idempotencyKey: string,
  sent: number,
): Promise<{ finish(): Promise<SlowAnswer> }> {
  const session = connectHttp2(server.url, { ca: TEST_CA });
  const stream = session.request(
    {
      ':method': 'POST',
      ':path': '/v1/pets',
      authorization: `Bearer ${TEST_KEY}`,
      'content-type': 'application/json',
      'idempotency-key': idempotencyKey,
      'content-length': String(Buffer.byteLength(body)),
      expect: '100-continue',
    },
    { endStream: false },
  );
  const response = once(stream, 'response') as Promise<[Record<string, string | string[] | undefined>]>;
  await once(stream, 'continue');
  stream.write(body.slice(0, sent));
  return {
    async finish() {
      stream.end(body.slice(sent));
      const [headers] = await response;
      stream.resume();
      await once(stream, 'close');
      session.close();
      return { status: Number(headers[':status']), replayed: headers['idempotent-replayed'] !== undefined };
    },
  };
}

test('a repeat that arrives while the first is still sending its body is 409; the first then completes as the original', async () => {
  const cases: Array<[label: string, repeatBody: string]> = [
    ['equal body', '{"name":"Slow","categoryId":1}'],
    ['another body', '{"name":"Other","categoryId":1}'],
  ];
  for (const [label, repeatBody] of cases) {
    const before = Number((await call(server, 'GET', '/v1/pets')).headers['x-total-count']);
    const key = `slow-first-${label.replace(' ', '-')}`;
    const first = await startSlowPost('{"name":"Slow","categoryId":1}', key, 10);
    const repeat = await post('/v1/pets', repeatBody, key);
    assert.equal(repeat.status, 409, `${label}: ${repeat.text}`);
    assert.match((repeat.json as { message: string }).message, /still in progress/);
    const answer = await first.finish();
    assert.equal(answer.status, 201, label);
    assert.equal(answer.replayed, false, `${label}: the first request is the original`);
    assert.equal(Number((await call(server, 'GET', '/v1/pets')).headers['x-total-count']), before + 1, label);
    const after = await post('/v1/pets', '{"name":"Slow","categoryId":1}', key);
    assert.equal(after.headers['idempotent-replayed'], 'true', label);
  }
});

test('a first request whose body turns out invalid frees its key for the repeat that waited', async () => {
  const first = await startSlowPost('{"name":"","categoryId":1}', 'slow-invalid', 5);
  assert.equal((await post('/v1/pets', '{"name":"Valid","categoryId":1}', 'slow-invalid')).status, 409);
  assert.equal((await first.finish()).status, 400);
  const retry = await post('/v1/pets', '{"name":"Valid","categoryId":1}', 'slow-invalid');
  assert.equal(retry.status, 201, retry.text);
  assert.equal(retry.headers['idempotent-replayed'], undefined);
});
