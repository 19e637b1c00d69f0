// The load generator's HTTP/1.1 wire code: requests serialised once, and a response parser that must
// read every framing a server or proxy may use (RFC 9112 section 6), however the bytes are split.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  encodeRequest,
  MAX_HEAD_BYTES,
  ProtocolError,
  type ResponseHeaders,
  ResponseParser,
} from '../../bench/wire.js';

interface Read {
  status: number;
  headers: ResponseHeaders | undefined;
  bodyBytes: number;
  reusable: boolean;
}

/** A parser whose answers are collected; `heads` says which requests, in order, were HEADs. */
function parserFor(keepHeaders = false, heads: boolean[] = []): { parser: ResponseParser; read: Read[] } {
  const read: Read[] = [];
  let answered = 0;
  const parser = new ResponseParser(
    {
      answersHead: () => heads[answered] === true,
      response: (status, headers, bodyBytes, reusable) => {
        answered += 1;
        read.push({ status, headers, bodyBytes, reusable });
      },
    },
    keepHeaders,
  );
  return { parser, read };
}

const OK = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 13\r\n\r\n[{"id":1234}]';
const CHUNKED =
  'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '5\r\nhello\r\n' +
  '7;name=value\r\n, world\r\n' +
  '0\r\nX-Trailer: yes\r\n\r\n';

test('a request is serialised with Host, its headers, and Content-Length for a body', () => {
  const get = encodeRequest(
    { method: 'GET', path: '/v1/pets?limit=20', headers: { authorization: 'Bearer k' } },
    'h:8',
  );
  assert.equal(get.toString(), 'GET /v1/pets?limit=20 HTTP/1.1\r\nhost: h:8\r\nauthorization: Bearer k\r\n\r\n');
  const post = encodeRequest(
    { method: 'POST', path: '/p', headers: { 'content-type': 'application/json' }, body: '{"name":"Ü"}' },
    'h',
  );
  assert.equal(
    post.toString(),
    'POST /p HTTP/1.1\r\nhost: h\r\ncontent-type: application/json\r\ncontent-length: 13\r\n\r\n{"name":"Ü"}',
    'the length counts bytes, not characters',
  );
  const ownHost = encodeRequest({ method: 'GET', path: '/', headers: { Host: 'other' } }, 'h');
  assert.equal(ownHost.toString(), 'GET / HTTP/1.1\r\nHost: other\r\n\r\n', 'a Host of the spec wins');
});

test('pipelined answers in one chunk are each read, with their body lengths', () => {
  const { parser, read } = parserFor();
  parser.feed(Buffer.from(OK + OK + 'HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n'));
  assert.deepEqual(
    read.map((r) => [r.status, r.bodyBytes, r.reusable]),
    [
      [200, 13, true],
      [200, 13, true],
      [404, 0, true],
    ],
  );
});

test('an answer split at every byte boundary reads the same', () => {
  for (const text of [OK, CHUNKED]) {
    const bytes = Buffer.from(text + text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { parser, read } = parserFor();
      parser.feed(bytes.subarray(0, cut));
      parser.feed(bytes.subarray(cut));
      assert.equal(read.length, 2, `cut at ${cut} of ${JSON.stringify(text.slice(0, 30))}`);
      assert.equal(read[1]?.bodyBytes, read[0]?.bodyBytes);
    }
    // And one byte at a time.
    const { parser, read } = parserFor();
    for (const byte of bytes) parser.feed(Buffer.from([byte]));
    assert.equal(read.length, 2);
  }
});

test('chunked bodies: sizes in hex, extensions and trailers skipped, the data bytes counted', () => {
  const { parser, read } = parserFor();
  parser.feed(Buffer.from(CHUNKED));
  assert.deepEqual(read, [{ status: 200, headers: undefined, bodyBytes: 12, reusable: true }]);
  const big = parserFor();
  big.parser.feed(
    Buffer.from(`HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nFF\r\n${'x'.repeat(255)}\r\n0\r\n\r\n`),
  );
  assert.equal(big.read[0]?.bodyBytes, 255);
});

test('no body for HEAD, 204 and 304, whatever Content-Length says; 1xx answers are skipped', () => {
  const { parser, read } = parserFor(false, [true, false, false, false]);
  parser.feed(
    Buffer.from(
      'HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\n' +
        'HTTP/1.1 204 No Content\r\n\r\n' +
        'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 304 Not Modified\r\ncontent-length: 9\r\n\r\n' +
        'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]',
    ),
  );
  assert.deepEqual(
    read.map((r) => [r.status, r.bodyBytes]),
    [
      [200, 0],
      [204, 0],
      [304, 0],
      [200, 2],
    ],
  );
});

test('Connection: close and HTTP/1.0 end reuse; a body without a length runs to the end of the connection', () => {
  const reuse = (text: string): boolean | undefined => {
    const { parser, read } = parserFor();
    parser.feed(Buffer.from(text));
    return read[0]?.reusable;
  };
  assert.equal(reuse('HTTP/1.1 200 OK\r\nConnection: close\r\ncontent-length: 2\r\n\r\n[]'), false);
  assert.equal(reuse('HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\n[]'), false);
  assert.equal(reuse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\ncontent-length: 2\r\n\r\n[]'), true);
  // After an answer that ends the connection, nothing more is read from it.
  const closing = parserFor();
  closing.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n' + OK));
  assert.equal(closing.read.length, 1);
  assert.equal(closing.parser.end(), true);
  const toClose = parserFor();
  toClose.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\n\r\nabc'));
  toClose.parser.feed(Buffer.from('def'));
  assert.equal(toClose.read.length, 0, 'not complete before the connection ends');
  assert.equal(toClose.parser.end(), true);
  assert.deepEqual(toClose.read, [{ status: 200, headers: undefined, bodyBytes: 6, reusable: false }]);
});

test('end() tells a connection that ended between answers from one that cut an answer off', () => {
  const between = parserFor();
  between.parser.feed(Buffer.from(OK));
  assert.equal(between.parser.end(), true);
  const cut = parserFor();
  cut.parser.feed(Buffer.from(OK.slice(0, -3)));
  assert.equal(cut.parser.end(), false);
  const headOnly = parserFor();
  headOnly.parser.feed(Buffer.from('HTTP/1.1 200 OK\r\ncontent-'));
  assert.equal(headOnly.parser.end(), false);
});

test('headers are kept only when asked: lower-case names, a repeated one as a list', () => {
  const kept = parserFor(true);
  kept.parser.feed(
    Buffer.from(
      'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nSet-Cookie: a\r\nset-cookie: b\r\nX-Empty:\r\ncontent-length: 0\r\n\r\n',
    ),
  );
  assert.deepEqual(kept.read[0]?.headers, {
    'retry-after': '3',
    'set-cookie': ['a', 'b'],
    'x-empty': '',
    'content-length': '0',
  });
  const lean = parserFor(false);
  lean.parser.feed(Buffer.from(OK));
  assert.equal(lean.read[0]?.headers, undefined);
});

test('bytes that are not HTTP/1.1 are a ProtocolError, never a guess', () => {
  const cases = [
    'SSH-2.0-OpenSSH\r\n\r\n',
    'HTTP/2 200\r\n\r\n',
    'HTTP/1.1 2x0 OK\r\n\r\n',
    'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n',
    'HTTP/1.1 200 OK\r\ncontent-length: 1e3\r\n\r\n',
    'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
    'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n',
    'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabXY',
  ];
  for (const text of cases) {
    const { parser } = parserFor();
    assert.throws(() => parser.feed(Buffer.from(text)), ProtocolError, JSON.stringify(text));
  }
  const { parser } = parserFor();
  assert.throws(() => parser.feed(Buffer.alloc(MAX_HEAD_BYTES + 1, 'a')), ProtocolError, 'a head with no end');
});
