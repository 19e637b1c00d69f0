// TLS on the service's own port (docs/deployment.md "TLS and HTTP/2"): ALPN gives HTTP/2 or HTTP/1.1
// with the same answers, Strict-Transport-Security goes with every answer over TLS and never over plain
// HTTP, and what HTTP/2 does where HTTP/1.1 had a rule of its own: a body left unread closes its stream
// (not the connection), 100-continue, the request timeout, repeated fields, a head too large, a stop
// with GOAWAY. The metrics listener stays plain HTTP.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { type ClientHttp2Session, connect as connectHttp2, constants, type IncomingHttpHeaders } from 'node:http2';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { request } from 'undici';
import { createAnimalStore } from '../../src/app/create-animal-store.js';
import { ManualClock } from '../../src/core/clock.js';
import { QUIET_LOGGER } from '../../src/logging/logger.js';
import { SERVICES_REQUIRED } from '../helpers/postgres.js';
import { sendRaw } from '../helpers/raw-http.js';
import { call, createPet, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { type Exchange, http2Exchange, https1Exchange, openHttp2, servedCertificate } from '../helpers/tls-clients.js';
import { TEST_CA, TEST_PAIRS } from '../helpers/transport.js';

const TLS = { tlsCert: TEST_PAIRS.first.cert, tlsKey: TEST_PAIRS.first.key };
const AUTH = { authorization: `Bearer ${TEST_KEY}` };
const HSTS = 'max-age=31536000';
const JSON_TYPE = 'application/json; charset=utf-8';

let server: TestServer;
let session: ClientHttp2Session;
before(async () => {
  server = await startServer(TLS);
  session = await openHttp2(server.url);
});
after(async () => {
  session.close();
  await server.close();
});

/** `method path` over HTTP/2 on the test's session. */
function h2(
  method: string,
  path: string,
  headers: Record<string, string | string[]> = {},
  body?: string | Buffer,
): ReturnType<typeof http2Exchange> {
  return http2Exchange(session, { ':method': method, ':path': path, ...headers }, body);
}

/** Fields that differ from one answer to the next whatever the protocol: the time, and the limiter's count. */
const MOVING = new Set(['date', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit']);
/** Fields of HTTP/1.1 alone (RFC 9113 §8.2.2 forbids them in HTTP/2). */
const HTTP1_ONLY = new Set(['connection', 'keep-alive', 'transfer-encoding']);

/** The fields of an answer that must be the same over either protocol, by name. */
function contractFields(headers: IncomingHttpHeaders): Map<string, string> {
  const fields = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || MOVING.has(name) || HTTP1_ONLY.has(name)) continue;
    fields.set(name, String(value));
  }
  return fields;
}

test('ALPN gives HTTP/2 to a client that offers it and HTTP/1.1 to one that does not, and both get the same answers', async () => {
  assert.equal((await servedCertificate(server.url, ['h2', 'http/1.1'])).protocol, 'h2');
  assert.equal((await servedCertificate(server.url, ['http/1.1'])).protocol, 'http/1.1');
  const pet = await createPet(server, { name: 'Alpn', categoryId: 4, status: 'sold' });
  await createPet(server, { name: 'Second', categoryId: 4 });
  const requests: Array<[method: string, path: string, headers: Record<string, string>, body?: string]> = [
    ['GET', `/v1/pets/${pet.id}`, AUTH],
    ['GET', '/v1/pets?limit=1', AUTH],
    ['HEAD', '/v1/pets?limit=1', AUTH],
    ['GET', '/v1/pets/999999', AUTH],
    ['GET', '/v1/pets/abc', AUTH],
    ['GET', '/v1/pets', {}],
    ['GET', '/v1/pets', { authorization: 'Bearer unknown-key-0123456789' }],
    ['DELETE', '/v1/pets', AUTH],
    ['POST', '/v1/pets', { ...AUTH, 'content-type': 'application/json' }, '{"name":""}'],
    ['POST', '/v1/pets', { ...AUTH, 'content-type': 'text/plain' }, 'hello'],
    ['GET', '/elsewhere', AUTH],
    ['GET', `/v1/pets?name=${'a'.repeat(9000)}`, AUTH],
    ['GET', '/healthz', {}],
    ['GET', '/v1/openapi.json', {}],
  ];
  for (const [index, [method, path, headers, body]] of requests.entries()) {
    const label = `${method} ${path}`;
    // The same request id, so that X-Request-Id is the same too.
    const sent = { ...headers, 'x-request-id': `alpn-${index}` };
    const overHttp2 = await h2(method, path, sent, body);
    const overHttp1 = await https1Exchange(`${server.url}${path}`, method, sent, body);
    assert.equal(overHttp2.protocol, 'h2');
    assert.equal(overHttp1.protocol, 'http/1.1');
    assert.equal(overHttp2.status, overHttp1.status, label);
    assert.ok(overHttp2.body.equals(overHttp1.body), `${label}: the same bytes`);
    assert.deepEqual(contractFields(overHttp2.headers), contractFields(overHttp1.headers), label);
    for (const name of MOVING) assert.equal(name in overHttp2.headers, name in overHttp1.headers, `${label}: ${name}`);
    for (const name of HTTP1_ONLY) assert.equal(overHttp2.headers[name], undefined, `${label}: no ${name} over HTTP/2`);
    assert.equal(overHttp2.headers['strict-transport-security'], HSTS, label);
  }
});

test('every answer over TLS carries Strict-Transport-Security, even the 400 of HTTP/1.1 Node could not parse', async () => {
  const answers: Exchange[] = [
    await h2('GET', '/v1/pets', AUTH),
    await h2('GET', '/v1/pets'),
    await h2('GET', '/docs'),
    await h2('OPTIONS', '/v1/pets', { origin: 'https://app.example.com', 'access-control-request-method': 'GET' }),
    await https1Exchange(`${server.url}/healthz`, 'GET'),
    await https1Exchange(`${server.url}/v1/pets/abc`, 'GET', AUTH),
  ];
  for (const answer of answers) assert.equal(answer.headers['strict-transport-security'], HSTS, String(answer.status));
  // Over TLS (raw-http.ts opens TLS for an https address), a request line Node's parser refuses.
  const raw = await sendRaw(server.url, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
  assert.match(raw, /^HTTP\/1\.1 400 /);
  assert.match(raw, /\r\nStrict-Transport-Security: max-age=31536000\r\n/);
});

test('Strict-Transport-Security is never sent over plain HTTP, follows --hsts-max-age, and 0 turns it off', async () => {
  const plain = await startServer({ tlsCert: undefined, tlsKey: undefined });
  try {
    assert.match(plain.url, /^http:/);
    assert.equal((await call(plain, 'GET', '/v1/pets')).headers['strict-transport-security'], undefined);
    assert.equal((await call(plain, 'GET', '/healthz')).headers['strict-transport-security'], undefined);
    const raw = await sendRaw(plain.url, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
    assert.doesNotMatch(raw, /strict-transport-security/i);
  } finally {
    await plain.close();
  }
  for (const [hstsMaxAge, expected] of [
    [600, 'max-age=600'],
    [0, undefined],
  ] as const) {
    const secure = await startServer({ ...TLS, hstsMaxAge });
    try {
      assert.equal((await call(secure, 'GET', '/v1/pets')).headers['strict-transport-security'], expected);
      const raw = await sendRaw(secure.url, 'GET /v1/pets HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
      assert.equal(/strict-transport-security/i.test(raw), expected !== undefined, String(hstsMaxAge));
    } finally {
      await secure.close();
    }
  }
});

test('over HTTP/2 a GET with a body is answered as if it had none, and the session serves on', async () => {
  const pet = await createPet(server, { name: 'Quiet', categoryId: 1 });
  const one = await h2('GET', `/v1/pets/${pet.id}`, { ...AUTH, 'content-type': 'application/json' }, '{"name":"x"}');
  assert.equal(one.status, 200);
  assert.equal((JSON.parse(one.body.toString()) as { name: string }).name, 'Quiet');
  assert.equal((await h2('GET', '/v1/pets?limit=1', AUTH)).status, 200);
});

test('over HTTP/2 a body over the limit is 413 without a Connection field; only its stream ends, and the session serves on', async () => {
  const headers = { ...AUTH, 'content-type': 'application/json' };
  // No Content-Length: DATA frames until the limit is passed.
  const streamed = await h2('POST', '/v1/pets', headers, Buffer.alloc(70_000, ' '));
  assert.equal(streamed.status, 413);
  assert.equal(JSON.parse(streamed.body.toString()).code, 'payload_too_large');
  assert.equal(streamed.headers.connection, undefined);
  assert.equal(streamed.rstCode, constants.NGHTTP2_NO_ERROR);
  // A Content-Length over the limit: answered before any of the body is sent, which is then never asked for.
  const stream = session.request({ ':method': 'POST', ':path': '/v1/pets', ...headers, 'content-length': '1000000' });
  const [declared] = (await once(stream, 'response')) as [IncomingHttpHeaders];
  stream.resume();
  await once(stream, 'close');
  assert.equal(declared[':status'], 413);
  assert.equal(stream.rstCode, constants.NGHTTP2_NO_ERROR, 'the client is told to stop sending (RFC 9113 §8.1)');
  assert.equal((await h2('GET', '/v1/pets?limit=1', AUTH)).status, 200, 'the session serves on');
});

test('over HTTP/2 a Content-Length that disagrees with the DATA is a protocol error, and nothing is created', async () => {
  const count = async (): Promise<string> =>
    String((await h2('GET', '/v1/pets?limit=1', AUTH)).headers['x-total-count']);
  const before = await count();
  const body = '{"name":"Framed","categoryId":1}';
  for (const length of [5, 100]) {
    // A session of its own: newer nghttp2 (Node 24's) ends the whole connection for it, older the stream.
    const own = await openHttp2(server.url);
    const headers = { ':method': 'POST', ':path': '/v1/pets', ...AUTH, 'content-type': 'application/json' };
    const sent = http2Exchange(own, { ...headers, 'content-length': String(length) }, body);
    await assert.rejects(sent, /NGHTTP2_PROTOCOL_ERROR|Session closed with error code/, String(length));
    own.destroy();
  }
  assert.equal(await count(), before);
});

test('over HTTP/2, Expect: 100-continue gets its 100 once the body is wanted, and a refusal comes without one', async () => {
  const post = async (headers: Record<string, string>): Promise<{ continued: boolean; status: number }> => {
    const stream = session.request(
      {
        ':method': 'POST',
        ':path': '/v1/pets',
        'content-type': 'application/json',
        expect: '100-continue',
        ...headers,
      },
      { endStream: false },
    );
    let continued = false;
    stream.once('continue', () => {
      continued = true;
      stream.end('{"name":"Continued","categoryId":1}');
    });
    const [answer] = (await once(stream, 'response')) as [IncomingHttpHeaders];
    if (!continued) stream.close();
    stream.resume();
    await once(stream, 'close');
    return { continued, status: Number(answer[':status']) };
  };
  assert.deepEqual(await post(AUTH), { continued: true, status: 201 });
  assert.deepEqual(await post({}), { continued: false, status: 401 });
});

test('over HTTP/2 a request head larger than --max-header-bytes is 431 with the JSON body, on a new session too', async () => {
  // A session's first request comes before it has acknowledged the server's settings, when nghttp2
  // does not yet hold it to the advertised limit: the service checks the head itself.
  const fresh = await openHttp2(server.url);
  try {
    for (const client of [fresh, session]) {
      const big = await http2Exchange(client, {
        ':method': 'GET',
        ':path': '/v1/pets',
        ...AUTH,
        'x-request-id': 'big-head',
        'x-big': 'y'.repeat(20_000),
      });
      assert.equal(big.status, 431);
      assert.equal(big.headers['content-type'], JSON_TYPE);
      assert.equal(big.headers['x-request-id'], 'big-head');
      assert.equal(JSON.parse(big.body.toString()).code, 'headers_too_large');
      assert.equal(
        (await http2Exchange(client, { ':method': 'GET', ':path': '/v1/pets?limit=1', ...AUTH })).status,
        200,
      );
    }
  } finally {
    fresh.close();
  }
  // The same head over HTTP/1.1 on the same port: the same answer.
  const overHttp1 = await https1Exchange(`${server.url}/v1/pets`, 'GET', { ...AUTH, 'x-big': 'y'.repeat(20_000) });
  assert.equal(overHttp1.status, 431);
  assert.equal(JSON.parse(overHttp1.body.toString()).code, 'headers_too_large');
});

test('over HTTP/2 a request with as many header fields as HTTP/1.1 takes is served', async () => {
  const many: Record<string, string> = {};
  for (let index = 0; index < 1000; index++) many[`x${index}`] = 'v';
  assert.equal((await h2('GET', '/v1/pets?limit=1', { ...AUTH, ...many })).status, 200);
});

test('over HTTP/2 a body that stops arriving is cut off at the request timeout with 408, and its token is given back', async () => {
  const key = 'timeout-key-0123456789abc';
  const slow = await startServer({
    ...TLS,
    requestTimeoutMs: 300,
    // Still: a bucket refilling meanwhile would blur the count.
    clock: new ManualClock(Date.UTC(2027, 0, 1)),
    keys: [{ key, plan: 'enterprise', perMinute: 1000, perDay: 100_000 }],
  });
  const slowSession = await openHttp2(slow.url);
  try {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const remaining = async (): Promise<number> => {
      const answer = await http2Exchange(slowSession, { ':method': 'GET', ':path': '/v1/pets?limit=1', ...headers });
      return Number(answer.headers['x-ratelimit-remaining']);
    };
    const before = await remaining();
    const stream = slowSession.request({ ':method': 'POST', ':path': '/v1/pets', ...headers }, { endStream: false });
    stream.write('{"name":');
    const [answer] = (await once(stream, 'response')) as [IncomingHttpHeaders];
    let body = '';
    stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
    await once(stream, 'close');
    assert.equal(answer[':status'], 408);
    assert.equal(answer['content-type'], JSON_TYPE);
    assert.equal(answer['strict-transport-security'], HSTS);
    assert.equal(JSON.parse(body).code, 'request_timeout');
    // The 408's token was given back: the next request is charged as if the cut-off one had never come.
    assert.equal(await remaining(), before - 1);
  } finally {
    slowSession.close();
    await slow.close();
  }
});

test(
  'over HTTP/2 a client that reads none of its answers (a zero window) loses its connection at the send timeout',
  { timeout: 120_000 },
  async () => {
    const stalled = await startServer({ ...TLS, keepAliveTimeoutMs: 100, sendTimeoutMs: 200 });
    // A window of 0 lets the service send the answers' heads but not one byte of their bodies.
    const reader = connectHttp2(stalled.url, { ca: TEST_CA, settings: { initialWindowSize: 0 } });
    reader.on('error', () => {});
    try {
      await once(reader, 'connect');
      const stream = reader.request({ ':method': 'GET', ':path': '/v1/pets', ...AUTH });
      stream.on('error', () => {});
      const [answer] = (await once(stream, 'response')) as [IncomingHttpHeaders];
      assert.equal(answer[':status'], 200);
      // Before the send timeout, the session stayed open until the service stopped.
      await once(reader, 'close');
    } finally {
      reader.destroy();
      await stalled.close();
    }
  },
);

test('a stop sends HTTP/2 clients GOAWAY: a request in flight is answered, a new connection gets 503, then the port closes', async () => {
  const app = await createAnimalStore({
    ...TLS,
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 1000, perDay: 10_000 }],
    logger: QUIET_LOGGER,
  });
  const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
  const client = await openHttp2(url);
  const goaway = once(client, 'goaway');
  // A create whose body is still on its way when the stop begins: it is in flight.
  const body = '{"name":"Last","categoryId":1}';
  const slow = client.request(
    { ':method': 'POST', ':path': '/v1/pets', ...AUTH, 'content-type': 'application/json', expect: '100-continue' },
    { endStream: false },
  );
  await once(slow, 'continue');
  slow.write(body.slice(0, 5));
  const slowAnswer = once(slow, 'response') as Promise<[IncomingHttpHeaders]>;

  const closed = app.close();
  const [code] = (await goaway) as [number];
  assert.equal(code, constants.NGHTTP2_NO_ERROR);
  // A client that connects meanwhile is answered, and told to go elsewhere, without a Connection field.
  const late = await openHttp2(url);
  const health = await http2Exchange(late, { ':method': 'GET', ':path': '/healthz' });
  assert.equal(health.status, 503);
  assert.equal(health.headers.connection, undefined);
  assert.equal(JSON.parse(health.body.toString()).code, 'unavailable');
  late.close();

  slow.end(body.slice(5));
  const [answer] = await slowAnswer;
  slow.resume();
  assert.equal(answer[':status'], 201, 'the request in flight is carried out');
  await closed;
  client.close();
  await assert.rejects(servedCertificate(url), /ECONNREFUSED/, 'once the last request is answered, the port is closed');
});

test('the metrics listener stays plain HTTP beside a TLS port, and counts what HTTP/2 served', async () => {
  const app = await createAnimalStore({
    ...TLS,
    metricsPort: 0,
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 1000, perDay: 10_000 }],
    logger: QUIET_LOGGER,
  });
  try {
    const { url, metricsUrl } = await app.listen({ port: 0, host: '127.0.0.1' });
    assert.match(url, /^https:/);
    assert.match(String(metricsUrl), /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const client = await openHttp2(url);
    for (let index = 0; index < 3; index++)
      assert.equal((await http2Exchange(client, { ':method': 'GET', ':path': '/v1/pets', ...AUTH })).status, 200);
    client.close();
    const scrape = await request(String(metricsUrl));
    const text = await scrape.body.text();
    assert.equal(scrape.statusCode, 200);
    assert.match(text, /animal_store_http_requests_total\{operation="listPets",status="200"\} 3\n/);
  } finally {
    await app.close();
  }
});

const run = promisify(execFile);

/**
 * Whether this machine's curl speaks HTTP/2 (Debian's does): the curl tests are skipped with the reason
 * otherwise, and fail with it when ANIMAL_STORE_TEST_SERVICES=required (as in CI).
 */
async function curlSkipReason(): Promise<string | undefined> {
  try {
    const { stdout } = await run('curl', ['--version']);
    return /\bHTTP2\b/.test(stdout) ? undefined : 'this curl has no HTTP/2';
  } catch {
    return 'curl is not installed';
  }
}
const curlMissing = await curlSkipReason();
const curlSkip = SERVICES_REQUIRED ? undefined : curlMissing;

/** `curl -k` with `args` against the test service; the status, the header block and the body. */
async function curl(
  version: '--http2' | '--http1.1',
  args: string[],
): Promise<{ status: number; headers: string; body: string }> {
  if (curlMissing !== undefined) assert.fail(curlMissing);
  const { stdout } = await run('curl', ['-sk', version, '-D', '-', ...args]);
  const split = stdout.indexOf('\r\n\r\n');
  const headers = stdout.slice(0, split);
  const status = Number(/^HTTP\/[0-9.]+ (\d{3})/.exec(headers)?.[1]);
  return { status, headers: headers.toLowerCase(), body: stdout.slice(split + 4) };
}

test('curl --http2 -k and curl --http1.1 -k get the same answers', { skip: curlSkip }, async () => {
  const pet = await createPet(server, { name: 'Curled', categoryId: 2 });
  for (const path of [`/v1/pets/${pet.id}`, '/v1/pets?limit=2', '/v1/pets/0']) {
    const overHttp2 = await curl('--http2', ['-H', `Authorization: Bearer ${TEST_KEY}`, `${server.url}${path}`]);
    const overHttp1 = await curl('--http1.1', ['-H', `Authorization: Bearer ${TEST_KEY}`, `${server.url}${path}`]);
    assert.match(overHttp2.headers, /^http\/2 /);
    assert.match(overHttp1.headers, /^http\/1\.1 /);
    assert.equal(overHttp2.status, overHttp1.status, path);
    assert.equal(overHttp2.body, overHttp1.body, path);
    for (const field of [
      'content-type',
      'x-total-count',
      'link',
      'deprecation',
      'sunset',
      'strict-transport-security',
    ]) {
      const value = (headers: string): string | undefined => new RegExp(`^${field}: (.*)$`, 'm').exec(headers)?.[1];
      assert.equal(value(overHttp2.headers), value(overHttp1.headers), `${path}: ${field}`);
    }
  }
});

test(
  'over HTTP/2 as over HTTP/1.1, a repeated Content-Type, Authorization or Idempotency-Key is refused (curl sends repeats as they are)',
  { skip: curlSkip },
  async () => {
    const post = ['-X', 'POST', '--data', '{"name":"Twice","categoryId":1}', `${server.url}/v1/pets`];
    const auth = ['-H', `Authorization: Bearer ${TEST_KEY}`];
    const json = ['-H', 'Content-Type: application/json'];
    for (const version of ['--http2', '--http1.1'] as const) {
      const types = await curl(version, [...auth, ...json, ...json, ...post]);
      assert.equal(types.status, 400, `${version}: ${types.body}`);
      assert.match(types.body, /"code":"invalid_header".*Content-Type/);
      const keys = await curl(version, [...auth, ...auth, ...json, ...post]);
      assert.equal(keys.status, 401, version);
      const idempotency = ['-H', 'Idempotency-Key: a', '-H', 'Idempotency-Key: a'];
      const repeated = await curl(version, [...auth, ...json, ...idempotency, ...post]);
      assert.equal(repeated.status, 400, version);
      assert.match(repeated.body, /Idempotency-Key/);
    }
  },
);
