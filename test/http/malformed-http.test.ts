// Malformed and hostile HTTP, sent as raw bytes (README "How the API behaves" and "Errors"): bad syntax
// and request-smuggling shapes are 400 with the connection closed and never two requests served;
// oversized headers 431, over-long targets 414; paths are matched as sent; slow clients are cut off
// with 408. Each refusal leaves the store unchanged, and the next good request is served.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { statusesIn } from '../helpers/raw-http.js';
import { call, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const AUTH_LINE = `Authorization: Bearer ${TEST_KEY}\r\n`;
const VALID = '{"name":"Smuggled","categoryId":1}';
/** A complete, valid request that creates a pet: if it is ever served after a refused one, something was smuggled. */
const SMUGGLED_POST = `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: ${VALID.length}\r\n\r\n${VALID}`;
const SMUGGLED_GET = `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}\r\n`;

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

interface Exchange {
  raw: string;
  /** The server closed the connection (as opposed to the client giving up after `waitMs`). */
  closedByServer: boolean;
  elapsedMs: number;
}

/** Writes `pieces` to a fresh connection to `url` (`gapMs` apart) and reads until the server closes it or `waitMs` pass. */
function exchange(url: string, pieces: string | string[], { waitMs = 3_000, gapMs = 0 } = {}): Promise<Exchange> {
  const { hostname, port } = new URL(url);
  const queue = typeof pieces === 'string' ? [pieces] : [...pieces];
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let closedByServer = true;
    let writer: NodeJS.Timeout | undefined;
    const writeNext = (): void => {
      const piece = queue.shift();
      if (piece === undefined || socket.destroyed) return;
      socket.write(Buffer.from(piece, 'latin1'));
      if (queue.length > 0) writer = setTimeout(writeNext, gapMs);
    };
    const giveUp = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, waitMs);
    socket.on('data', (data) => received.push(data));
    socket.on('error', () => {}); // a reset after the answer is still a close by the server
    socket.on('close', () => {
      clearTimeout(giveUp);
      clearTimeout(writer);
      resolve({ raw: Buffer.concat(received).toString('latin1'), closedByServer, elapsedMs: Date.now() - started });
    });
    writeNext();
  });
}

/** The first answer in raw bytes: status, lower-cased headers and parsed JSON body. */
function firstAnswer(raw: string): {
  status: number;
  headers: Map<string, string>;
  body: { code: string; message: string; status: number };
} {
  const end = raw.indexOf('\r\n\r\n');
  assert.ok(end > 0, `an answer: ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const headers = new Map(
    lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
  const length = Number(headers.get('content-length'));
  assert.ok(Number.isInteger(length), `a Content-Length: ${JSON.stringify(raw.slice(0, 300))}`);
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: JSON.parse(raw.slice(end + 4, end + 4 + length)) as { code: string; message: string; status: number },
  };
}

/** Asserts one raw JSON error answer, and only one, with the connection closed by the server. */
function assertRefused(result: Exchange, status: number, code: string, label: string): void {
  assert.deepEqual(
    statusesIn(result.raw),
    [status],
    `${label}: exactly one answer, ${JSON.stringify(result.raw.slice(0, 300))}`,
  );
  assert.ok(result.closedByServer, `${label}: the server closed the connection`);
  const answer = firstAnswer(result.raw);
  assert.equal(answer.headers.get('content-type'), JSON_TYPE, label);
  assert.equal(answer.headers.get('connection'), 'close', label);
  assert.equal(answer.body.code, code, label);
  assert.equal(answer.body.status, status, label);
  assert.ok(answer.body.message.length > 0, label);
}

/** The number of animals, read with a plain GET that must itself be served. */
async function petCount(target: TestServer = server): Promise<number> {
  const reply = await promptCall(target, 'GET', '/v1/pets?limit=1');
  assert.equal(reply.status, 200, 'the next good request is served');
  return Number(reply.headers['x-total-count']);
}

test('request lines that are not HTTP/1.1 are 400 bad_request with the JSON body, and the connection closes', async () => {
  const before = await petCount();
  for (const requestLine of [
    'GARBAGE',
    'GET /v1/pets HTTP/9.9',
    'GET /v1/pets HTTP/1.1 extra',
    'GET /v1/pets HTTP/1.x',
    'get /v1/pets HTTP/1.1',
    'FOO /v1/pets HTTP/1.1',
    'G(T /v1/pets HTTP/1.1',
    'GET /v1/pe ts HTTP/1.1',
    'GET /v1/pets\t HTTP/1.1',
    'GET /v1/pets\u0000 HTTP/1.1',
    'GET /v1/pets/\u00c3\u00a9 HTTP/1.1',
    '\u0000\u0001\u0002\u0003',
  ]) {
    const result = await exchange(server.url, `${requestLine}\r\nHost: x\r\n${AUTH_LINE}\r\n${SMUGGLED_POST}`);
    assertRefused(result, 400, 'bad_request', JSON.stringify(requestLine));
  }
  assert.equal(await petCount(), before);
});

test('a text request line naming HTTP/2.0 or HTTP/0.9 is 400 bad_request, closed, and the service goes on serving', async () => {
  // Node's HTTP/1 parser takes these versions; the service must not take such a request for HTTP/2.
  const before = await petCount();
  for (const version of ['HTTP/2.0', 'HTTP/0.9']) {
    for (const head of [
      `GET /healthz ${version}\r\nHost: x\r\n`,
      `GET /v1/pets ${version}\r\nHost: x\r\n${AUTH_LINE}`,
    ]) {
      const result = await exchange(server.url, `${head}\r\n${SMUGGLED_POST}`);
      assertRefused(result, 400, 'bad_request', JSON.stringify(head));
      assert.match(firstAnswer(result.raw).body.message, new RegExp(version.replace('.', '\\.')));
    }
    const post = `POST /v1/pets ${version}\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: ${VALID.length}\r\n\r\n${VALID}`;
    assertRefused(await exchange(server.url, post), 400, 'bad_request', post);
  }
  assert.equal(await petCount(), before, 'nothing created, and the service still answers');
});

test('request-smuggling framings are 400 bad_request, the connection closed, never two requests served', async () => {
  const before = await petCount();
  const post = `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\n`;
  const cases: Array<[string, string]> = [
    [
      'both Transfer-Encoding and Content-Length',
      `${post}Transfer-Encoding: chunked\r\nContent-Length: ${5 + SMUGGLED_POST.length}\r\n\r\n0\r\n\r\n${SMUGGLED_POST}`,
    ],
    [
      'both Content-Length and Transfer-Encoding',
      `${post}Content-Length: ${5 + SMUGGLED_POST.length}\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${SMUGGLED_POST}`,
    ],
    [
      'two different Content-Lengths',
      `${post}Content-Length: 0\r\nContent-Length: ${SMUGGLED_POST.length}\r\n\r\n${SMUGGLED_POST}`,
    ],
    ['two Content-Lengths in one field', `${post}Content-Length: 0, ${SMUGGLED_POST.length}\r\n\r\n${SMUGGLED_POST}`],
    [
      'Transfer-Encoding: chunked, identity',
      `${post}Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n${SMUGGLED_POST}`,
    ],
    ['Transfer-Encoding without chunked last', `${post}Transfer-Encoding: identity\r\n\r\n${SMUGGLED_POST}`],
    [
      'Transfer-Encoding: chunked twice',
      `${post}Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${SMUGGLED_POST}`,
    ],
    [
      'a space before the colon of Transfer-Encoding',
      `${post}Transfer-Encoding : chunked\r\nContent-Length: ${5 + SMUGGLED_POST.length}\r\n\r\n0\r\n\r\n${SMUGGLED_POST}`,
    ],
    ['a folded Transfer-Encoding', `${post}Transfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n${SMUGGLED_POST}`],
    [
      'a chunk size that is not hexadecimal',
      `${post}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n${SMUGGLED_POST}`,
    ],
    ['a negative Content-Length', `${post}Content-Length: -1\r\n\r\n${SMUGGLED_POST}`],
    ['a Content-Length that is not a number', `${post}Content-Length: 1e3\r\n\r\n${SMUGGLED_POST}`],
    ['a Content-Length past 2^64', `${post}Content-Length: 99999999999999999999999\r\n\r\n${SMUGGLED_POST}`],
  ];
  for (const [label, bytes] of cases) {
    const result = await exchange(server.url, `${bytes}${SMUGGLED_GET}`);
    assertRefused(result, 400, 'bad_request', label);
  }
  assert.equal(await petCount(), before);
});

test('a whole request followed by bytes that are not HTTP gets its own answer first, then the 400, then the close', async () => {
  const before = await petCount();
  for (const [label, garbage] of [
    ['three stray bytes', 'xyz'],
    ['a request line that is not HTTP', 'NOT HTTP AT ALL\r\n\r\n'],
  ] as const) {
    const result = await exchange(server.url, `${SMUGGLED_POST}${garbage}`);
    // The create was carried out: its 201 must reach the client, or a retry would create it twice.
    assert.deepEqual(statusesIn(result.raw), [201, 400], `${label}: ${JSON.stringify(result.raw.slice(0, 400))}`);
    assert.ok(result.closedByServer, label);
    assert.match(result.raw, /"code":"bad_request"/, label);
  }
  assert.equal(await petCount(), before + 2);
  // The 400 answers other bytes than the request before it: it does not carry that request's id.
  const tagged = SMUGGLED_POST.replace('Host: x\r\n', 'Host: x\r\nX-Request-Id: first-one\r\n');
  const result = await exchange(server.url, `${tagged}xyz`);
  assert.deepEqual(statusesIn(result.raw), [201, 400]);
  assert.equal(result.raw.match(/X-Request-Id: first-one\r\n/gi)?.length, 1, result.raw);
});

test('bare LF or CR, a space before the colon, folding and control characters in headers are 400, closed, one answer', async () => {
  const before = await petCount();
  const start = 'GET /v1/pets HTTP/1.1\r\n';
  const cases: Array<[string, string]> = [
    ['a bare LF ending one header line', `${start}Host: x\n${AUTH_LINE}\r\n`],
    ['bare LFs ending every line', `GET /v1/pets HTTP/1.1\nHost: x\n${AUTH_LINE.replace('\r\n', '\n')}\n`],
    ['a bare CR ending a header line', `${start}Host: x\rX-Other: y\r\n${AUTH_LINE}\r\n`],
    ['a bare CR inside a value', `${start}Host: x\r\nX-Other: a\rb\r\n${AUTH_LINE}\r\n`],
    ['a bare LF inside a value', `${start}Host: x\r\nX-Other: a\nb\r\n${AUTH_LINE}\r\n`],
    ['a space before the colon', `${start}Host : x\r\n${AUTH_LINE}\r\n`],
    ['a tab before the colon', `${start}Host\t: x\r\n${AUTH_LINE}\r\n`],
    ['a space inside the name', `${start}Host: x\r\nX Other: y\r\n${AUTH_LINE}\r\n`],
    ['a line without a colon', `${start}Host: x\r\nNoColon\r\n${AUTH_LINE}\r\n`],
    ['an obs-fold continuation line', `${start}Host: x\r\nX-Other: a\r\n b\r\n${AUTH_LINE}\r\n`],
    ['a NUL in a value', `${start}Host: x\r\nX-Other: a\u0000b\r\n${AUTH_LINE}\r\n`],
  ];
  for (const [label, bytes] of cases) {
    const result = await exchange(server.url, `${bytes}${SMUGGLED_POST}`);
    assertRefused(result, 400, 'bad_request', label);
  }
  assert.equal(await petCount(), before);
});

test('an HTTP/1.1 request without Host is 400 bad_request with the JSON body', async () => {
  const result = await exchange(server.url, `GET /v1/pets HTTP/1.1\r\n${AUTH_LINE}\r\n${SMUGGLED_POST}`);
  assertRefused(result, 400, 'bad_request', 'no Host');
});

test('an HTTP/1.1 request with two Host headers is 400 (RFC 9112 §3.2: Host must be single)', async () => {
  const before = await petCount();
  const result = await exchange(
    server.url,
    `GET /v1/pets HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n${AUTH_LINE}Connection: close\r\n\r\n`,
  );
  assert.deepEqual(statusesIn(result.raw), [400]);
  const answer = firstAnswer(result.raw);
  assert.equal(answer.headers.get('content-type'), JSON_TYPE);
  assert.ok(['bad_request', 'invalid_header'].includes(answer.body.code), answer.body.code);
  assert.equal(await petCount(), before);
});

test('answers to HTTP that Node refuses carry an X-Request-Id like every other answer', async () => {
  for (const bytes of [`GARBAGE\r\n\r\n`, `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]) {
    const result = await exchange(server.url, bytes);
    assert.match(firstAnswer(result.raw).headers.get('x-request-id') ?? '', REQUEST_ID);
  }
});

test('headers over 16 KiB are 431 headers_too_large with the JSON body, and the connection closes', async () => {
  const before = await petCount();
  const manyHeaders = Array.from({ length: 200 }, (_, index) => `X-Header-${index}: ${'v'.repeat(90)}\r\n`).join('');
  const cases: Array<[string, string]> = [
    ['one 20 KiB header', `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`],
    ['200 headers of 100 bytes', `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}${manyHeaders}\r\n`],
    [
      'a 20 KiB Authorization header',
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${'k'.repeat(20 * 1024)}\r\n\r\n`,
    ],
    [
      'a POST with 20 KiB of headers',
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\nContent-Length: ${VALID.length}\r\n\r\n${VALID}`,
    ],
  ];
  for (const [label, bytes] of cases) {
    const result = await exchange(server.url, `${bytes}${SMUGGLED_GET}`);
    assertRefused(result, 431, 'headers_too_large', label);
    assert.match(firstAnswer(result.raw).body.message, /16 KiB/);
  }
  // Under the limit, the same kind of request is served.
  const served = await call(server, 'GET', '/v1/pets', { headers: { 'x-big': 'a'.repeat(12 * 1024) } });
  assert.equal(served.status, 200);
  assert.equal(await petCount(), before);
});

test('the 431 message names the configured header limit', async () => {
  const small = await startServer({ maxHeaderBytes: 4096 });
  try {
    const result = await exchange(
      small.url,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}X-Big: ${'a'.repeat(6 * 1024)}\r\n\r\n`,
    );
    assertRefused(result, 431, 'headers_too_large', 'over a 4 KiB limit');
    assert.match(firstAnswer(result.raw).body.message, /larger than 4 KiB/);
  } finally {
    await small.close();
  }
});

test('a request target over 8 KiB (under 16 KiB) is 414 uri_too_long with the JSON body, before authentication', async () => {
  const before = await petCount();
  const longQuery = `/v1/pets?pad=${'a'.repeat(10 * 1024)}`;
  const longPath = `/v1/pets/${'1'.repeat(10 * 1024)}`;
  for (const [label, target, headers] of [
    ['a long query, with a key', longQuery, {}],
    ['a long query, without a key', longQuery, { authorization: '' }],
    ['a long path', longPath, {}],
    ['a long path outside the base path', `/${'x'.repeat(10 * 1024)}`, { authorization: '' }],
  ] as Array<[string, string, Record<string, string>]>) {
    const reply = await call(server, 'GET', target, { headers });
    assert.equal(reply.status, 414, label);
    assert.equal(reply.headers['content-type'], JSON_TYPE, label);
    assert.match((reply.headers['x-request-id'] as string) ?? '', REQUEST_ID, label);
    assert.deepEqual(
      reply.json,
      { code: 'uri_too_long', message: 'The request target is longer than 8192 bytes', status: 414 },
      label,
    );
  }
  const post = await call(server, 'POST', longQuery, { json: { name: 'Rex', categoryId: 1 } });
  assert.equal(post.status, 414);
  assert.equal(await petCount(), before);
});

test('a request target of exactly 8192 bytes is served; 8193 bytes are 414', async () => {
  const prefix = '/v1/pets?pad=';
  const atLimit = await call(server, 'GET', `${prefix}${'a'.repeat(8192 - prefix.length)}`);
  assert.equal(atLimit.status, 200);
  const overLimit = await call(server, 'GET', `${prefix}${'a'.repeat(8193 - prefix.length)}`);
  assert.equal(overLimit.status, 414);
  assert.equal((overLimit.json as { code: string }).code, 'uri_too_long');
});

test("a 100 KB URL is 431 (past Node's 16 KiB header limit) or 414, with the JSON body, and the connection closes", async () => {
  const before = await petCount();
  for (const target of [`/v1/pets?pad=${'a'.repeat(100_000)}`, `/v1/pets/${'%2e'.repeat(33_000)}`]) {
    const result = await exchange(server.url, `GET ${target} HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}\r\n${SMUGGLED_POST}`);
    const [status] = statusesIn(result.raw);
    assert.ok(status === 431 || status === 414, String(status));
    assertRefused(result, status as number, status === 431 ? 'headers_too_large' : 'uri_too_long', target.slice(0, 20));
  }
  assert.equal(await petCount(), before);
});

test('percent-encoded and case tricks in paths are matched as sent: 400 invalid_parameter or 404, nothing created', async () => {
  const before = await petCount();
  const get = (path: string, withKey = true): Promise<Exchange> =>
    exchange(server.url, `GET ${path} HTTP/1.1\r\nHost: x\r\n${withKey ? AUTH_LINE : ''}Connection: close\r\n\r\n`);
  for (const path of [
    '/v1/pets/%2e%2e',
    '/v1/pets/%2E%2E',
    '/v1/pets/..%2f1',
    '/v1/pets/%2e%2e%2f1',
    '/v1/pets/%31',
    '/v1/pets/1%00',
    '/v1/pets/%2e',
  ]) {
    const result = await get(path);
    assert.deepEqual(statusesIn(result.raw), [400], path);
    const answer = firstAnswer(result.raw);
    assert.equal(answer.headers.get('content-type'), JSON_TYPE, path);
    assert.equal(answer.body.code, 'invalid_parameter', path);
    assert.equal(answer.headers.get('deprecation'), '@1795305600', path);
  }
  for (const path of [
    '/v1//pets',
    '/v1/%70ets',
    '/v1/pets%2f1',
    '/v1/PETS',
    '/v1/pets/1/',
    '/v1/./pets',
    '/v1/pets/1/..',
  ]) {
    const result = await get(path);
    assert.deepEqual(statusesIn(result.raw), [404], path);
    const answer = firstAnswer(result.raw);
    assert.equal(answer.headers.get('content-type'), JSON_TYPE, path);
    assert.equal(answer.body.code, 'not_found', path);
    assert.ok(answer.headers.has('x-ratelimit-limit'), `${path}: an authenticated API answer`);
  }
  for (const path of ['/V1/PETS', '/V1/pets', '/%761/pets', '//v1/pets', '/v1%2fpets']) {
    const result = await get(path, false);
    assert.deepEqual(statusesIn(result.raw), [404], `${path}: outside the base path, no key needed`);
    assert.equal(firstAnswer(result.raw).body.code, 'not_found', path);
  }
  // Writes to look-alike paths create nothing.
  for (const path of [
    '/v1//pets',
    '/V1/PETS',
    '/v1/pets/',
    '/v1/%70ets',
    '/v1/./pets',
    '/v1/pets/%2e%2e',
    '/v1/pets/..',
  ]) {
    const result = await exchange(
      server.url,
      `POST ${path} HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: ${VALID.length}\r\nConnection: close\r\n\r\n${VALID}`,
    );
    const [status] = statusesIn(result.raw);
    assert.ok(status === 404 || status === 405, `${path}: ${String(status)}`);
  }
  assert.equal(await petCount(), before);
});

test('a method the route lacks is 405 with Allow; a method Node does not know is 400 bad_request', async () => {
  const known = await exchange(
    server.url,
    `PROPFIND /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Connection: close\r\n\r\n`,
  );
  assert.deepEqual(statusesIn(known.raw), [405]);
  const answer = firstAnswer(known.raw);
  assert.equal(answer.body.code, 'method_not_allowed');
  assert.equal(answer.headers.get('allow'), 'GET, HEAD, POST');
  const unknown = await exchange(server.url, `BREW /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}\r\n`);
  assertRefused(unknown, 400, 'bad_request', 'BREW');
});

test('CONNECT is answered like any method, never left hanging: 404 off the base path, 401 without a key, 405 with Allow on a route', async () => {
  const before = await petCount();
  // Bytes after the CONNECT head (a would-be tunnel) are never read as a second request.
  const offPath = await exchange(
    server.url,
    `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n${SMUGGLED_POST}`,
  );
  assertRefused(offPath, 404, 'not_found', 'CONNECT example.com:443');
  assert.match(offPath.raw, /\r\nx-request-id: [A-Za-z0-9._:-]+\r\n/i);
  const noKey = await exchange(server.url, 'CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n');
  assertRefused(noKey, 401, 'unauthorized', 'CONNECT without a key');
  const onRoute = await exchange(
    server.url,
    `CONNECT /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}\r\n${SMUGGLED_POST}`,
  );
  assertRefused(onRoute, 405, 'method_not_allowed', 'CONNECT /v1/pets');
  assert.equal(firstAnswer(onRoute.raw).headers.get('allow'), 'GET, HEAD, POST');
  assert.equal(await petCount(), before);
});

test('a CONNECT answered and then held half-open by its client does not hold up a graceful stop', async () => {
  const own = await startServer();
  const { hostname, port } = new URL(own.url);
  const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  socket.on('error', () => {});
  socket.resume();
  socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  await once(socket, 'end');
  // Its side still open, the client holds the connection; a socket the server only ended would keep
  // the stop waiting on it past its grace period, for as long as the client likes.
  try {
    const outcome = await Promise.race([
      own.close().then(() => 'stopped' as const),
      new Promise<'waiting'>((resolve) => setTimeout(() => resolve('waiting'), 8_000).unref()),
    ]);
    assert.equal(outcome, 'stopped');
  } finally {
    socket.destroy();
  }
});

test('an Expect the server does not know is ignored (RFC 9110 section 10.1.1): the request is served with the JSON answer', async () => {
  const result = await exchange(
    server.url,
    `GET /v1/pets?limit=1 HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Expect: bogus\r\nConnection: close\r\n\r\n`,
  );
  assert.deepEqual(statusesIn(result.raw), [200]);
  assert.equal(firstAnswer(result.raw).headers.get('content-type'), JSON_TYPE);
  const post = await exchange(
    server.url,
    `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Expect: 200-ok\r\nContent-Type: application/json\r\nContent-Length: ${VALID.length}\r\nConnection: close\r\n\r\n${VALID}`,
  );
  assert.deepEqual(statusesIn(post.raw), [201]);
});

test('HTTP that Node refuses and an over-long target count against no key', async () => {
  const counted = await startServer({
    clock: new ManualClock(Date.UTC(2027, 0, 1)),
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 100, perDay: 1000 }],
  });
  try {
    const remaining = async (): Promise<number> =>
      Number((await call(counted, 'GET', '/v1/pets')).headers['x-ratelimit-remaining']);
    const first = await remaining();
    await exchange(counted.url, `GET /v1/pets HTTP/1.1\r\nHost : x\r\n${AUTH_LINE}\r\n`);
    await exchange(
      counted.url,
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}X-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`,
    );
    await exchange(
      counted.url,
      `GET /v1/pets?pad=${'a'.repeat(10 * 1024)} HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Connection: close\r\n\r\n`,
    );
    // The clock stands still, so only requests that were counted can have taken tokens.
    assert.equal(await remaining(), first - 1);
  } finally {
    await counted.close();
  }
});

// Slow clients (slowloris): a server with short timeouts, so the cut-off is quick to observe.
const SLOW_BOUND_MS = 5_000;

/**
 * A request that is sent whole at once, sent again while it is itself answered 408. Node times a
 * request from the moment its connection is accepted, so on a busy machine that stalls this process
 * for half a second between the accept and the read, the short timeouts of the servers below cut off
 * even a prompt request. Only these prompt requests are repeated, never the slow one a test is about.
 */
async function promptCall(...args: Parameters<typeof call>): Promise<Awaited<ReturnType<typeof call>>> {
  for (let attempt = 1; ; attempt++) {
    const reply = await call(...args);
    if (reply.status !== 408 || attempt === 5) return reply;
  }
}

test('a client that sends half its headers and stops gets 408 request_timeout, and the connection closes', async () => {
  const slow = await startServer({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  try {
    const result = await exchange(slow.url, `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE.slice(0, 20)}`, {
      waitMs: SLOW_BOUND_MS + 1_000,
    });
    assert.ok(result.closedByServer && result.elapsedMs < SLOW_BOUND_MS, `closed after ${result.elapsedMs} ms`);
    assertRefused(result, 408, 'request_timeout', 'half the headers');
    assert.equal(await petCount(slow), 0);
  } finally {
    await slow.close();
  }
});

test('headers trickled a byte at a time are cut off on time with 408, however steadily they come', async () => {
  const slow = await startServer({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  try {
    const head = `GET /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}X-Slow: ${'s'.repeat(200)}`;
    const result = await exchange(slow.url, [...head], { waitMs: SLOW_BOUND_MS + 1_000, gapMs: 20 });
    assert.ok(result.closedByServer && result.elapsedMs < SLOW_BOUND_MS, `closed after ${result.elapsedMs} ms`);
    assertRefused(result, 408, 'request_timeout', 'trickled headers');
    assert.equal(await petCount(slow), 0);
  } finally {
    await slow.close();
  }
});

test('a body that stops short of its Content-Length is cut off with 408 request_timeout, creating nothing', async () => {
  const slow = await startServer({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  try {
    const result = await exchange(
      slow.url,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}X-Request-Id: slow-body-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n${VALID}`,
      { waitMs: SLOW_BOUND_MS + 1_000 },
    );
    assert.ok(result.closedByServer && result.elapsedMs < SLOW_BOUND_MS, `closed after ${result.elapsedMs} ms`);
    assertRefused(result, 408, 'request_timeout', 'a stalled body');
    // Its head was read: the answer carries the id the client gave it, as the access line does.
    assert.match(result.raw, /\r\nX-Request-Id: slow-body-1\r\n/i);
    assert.equal(await petCount(slow), 0);
    const served = await promptCall(slow, 'POST', '/v1/pets', { json: { name: 'Prompt', categoryId: 1 } });
    assert.equal(served.status, 201, 'a prompt client is served normally');
  } finally {
    await slow.close();
  }
});

test('a body trickled a byte at a time is cut off on time with 408, creating nothing', async () => {
  const slow = await startServer({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  try {
    const body = JSON.stringify({ name: 'T'.repeat(150), categoryId: 1 });
    const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // At 20 ms a byte the body would take over 3 s: the request timeout (1 s) must end it first.
    const result = await exchange(slow.url, [head, ...body], { waitMs: SLOW_BOUND_MS + 1_000, gapMs: 20 });
    assert.ok(result.closedByServer && result.elapsedMs < SLOW_BOUND_MS, `closed after ${result.elapsedMs} ms`);
    assertRefused(result, 408, 'request_timeout', 'a trickled body');
    assert.equal(await petCount(slow), 0);
  } finally {
    await slow.close();
  }
});

test('a 408 for a body too slow to arrive counts against no key: the token it took is given back', async () => {
  // A manual clock: no refill while the test waits for the real request timeout.
  const slow = await startServer({
    headersTimeoutMs: 500,
    requestTimeoutMs: 1000,
    clock: new ManualClock(Date.UTC(2027, 0, 1)),
    keys: [{ key: TEST_KEY, plan: 'enterprise', perMinute: 10, perDay: 1000 }],
  });
  try {
    const remaining = async (): Promise<string> =>
      String((await promptCall(slow, 'GET', '/v1/pets')).headers['x-ratelimit-remaining']);
    assert.equal(await remaining(), '9');
    const result = await exchange(
      slow.url,
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      { waitMs: SLOW_BOUND_MS + 1_000 },
    );
    assertRefused(result, 408, 'request_timeout', 'a stalled body');
    assert.equal(await remaining(), '8', 'only the two GETs count');
    // A request that was answered counts, whatever its status.
    assert.equal(
      (await promptCall(slow, 'POST', '/v1/pets', { body: '{', headers: { 'content-type': 'application/json' } }))
        .status,
      400,
    );
    assert.equal(await remaining(), '6');
  } finally {
    await slow.close();
  }
});

test('after a 408, a half-open client cannot finish its request: nothing is created, and its Idempotency-Key is free again', async () => {
  const slow = await startServer({ headersTimeoutMs: 500, requestTimeoutMs: 1000 });
  try {
    const body = VALID;
    const { hostname, port } = new URL(slow.url);
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    socket.on('error', () => {}); // the rest of the body may meet a closed connection
    socket.write(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\n${AUTH_LINE}Content-Type: application/json\r\nIdempotency-Key: half-open\r\n` +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await once(socket, 'end');
    assert.match(received, /^HTTP\/1\.1 408 /);
    // The client goes on as if nothing happened; the server must no longer be reading.
    socket.end(body.slice(5));
    if (!socket.destroyed) await once(socket, 'close');
    const retry = await promptCall(slow, 'POST', '/v1/pets', {
      body,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'half-open' },
    });
    assert.equal(retry.status, 201, `no longer in flight: ${retry.text}`);
    assert.equal(retry.headers['idempotent-replayed'], undefined, 'the cut-off request was never carried out');
    assert.equal(await petCount(slow), 1);
  } finally {
    await slow.close();
  }
});
