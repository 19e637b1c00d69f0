// One access line per request, with request id, method, path, status, duration and key id:
// never the key, never the query string (a key may be sent there by mistake).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { test } from 'node:test';
import { createLogger } from '../../src/logging/logger.js';
import { call, startServer, TEST_KEY } from '../helpers/server.js';

test('each request is logged once as a JSON line without the key or the query', async () => {
  const lines: string[] = [];
  const server = await startServer({ logger: createLogger({ level: 'info', write: (line) => lines.push(line) }) });
  try {
    await call(server, 'GET', `/v1/pets?limit=5&api_key=${TEST_KEY}`, { headers: { 'x-request-id': 'req-1' } });
    await call(server, 'GET', '/v1/pets', {
      headers: { authorization: 'Bearer not-a-valid-key-000000', 'x-request-id': 'req-2' },
    });
    await call(server, 'GET', '/healthz', { headers: { 'x-request-id': 'req-3' } });
    await call(server, 'POST', '/v1/pets', {
      json: { name: 'x', categoryId: 1 },
      headers: { 'x-request-id': 'req-4' },
    });
    await call(server, 'GET', '/nowhere', { headers: { 'x-request-id': 'req-5' } });
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      entries.map((entry) => [entry.requestId, entry.method, entry.path, entry.status]),
      [
        ['req-1', 'GET', '/v1/pets', 200],
        ['req-2', 'GET', '/v1/pets', 401],
        ['req-3', 'GET', '/healthz', 200],
        ['req-4', 'POST', '/v1/pets', 201],
        ['req-5', 'GET', '/nowhere', 404],
      ],
    );
    for (const entry of entries) {
      assert.equal(entry.level, 'info');
      assert.equal(typeof entry.durationMs, 'number');
      assert.match(String(entry.time), /^\d{4}-\d\d-\d\dT/);
    }
    assert.match(String(entries[0]?.keyId), /^cfg_[0-9a-f]{8}$/);
    assert.equal(entries[1]?.keyId, undefined);
    assert.ok(!lines.join('').includes(TEST_KEY), 'the key is never logged');
    assert.ok(!lines.join('').includes('not-a-valid-key'), 'a wrong key is never logged either');
  } finally {
    await server.close();
  }
});

test('a request cut off while its body arrives is logged as 408, and one whose client left as 499', async () => {
  const lines: string[] = [];
  const server = await startServer({
    headersTimeoutMs: 500,
    requestTimeoutMs: 1000,
    logger: createLogger({ level: 'info', write: (line) => lines.push(line) }),
  });
  try {
    const { hostname, port } = new URL(server.url);
    const head = (id: string): string =>
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TEST_KEY}\r\nX-Request-Id: ${id}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n{"na';
    const stalled = connect(Number(port), hostname);
    stalled.resume();
    stalled.write(head('stalled'));
    await once(stalled, 'close');
    const leaving = connect(Number(port), hostname);
    leaving.write(head('leaving'));
    await once(leaving, 'data'); // its 100 Continue: the request is being served
    leaving.destroy();
    const logged = async (id: string): Promise<unknown> => {
      for (let tries = 0; tries < 100; tries++) {
        const line = lines.find((text) => text.includes(`"requestId":"${id}"`));
        if (line !== undefined) return (JSON.parse(line) as { status: number }).status;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return undefined;
    };
    assert.equal(await logged('stalled'), 408);
    assert.equal(await logged('leaving'), 499);
  } finally {
    await server.close();
  }
});

test('levels filter lines, and the pretty form is one short line', () => {
  const lines: string[] = [];
  const quiet = createLogger({ level: 'error', write: (line) => lines.push(line) });
  quiet.warn('not shown');
  quiet.error('shown', { code: 7 });
  assert.equal(quiet.access, undefined);
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0] as string).code, 7);
  const pretty = createLogger({
    level: 'info',
    pretty: true,
    write: (line) => lines.push(line),
    now: () => Date.UTC(2027, 0, 1, 12, 0, 0),
  });
  pretty.access?.({ requestId: 'r', method: 'GET', path: '/v1/pets', status: 200, durationMs: 0.5, keyId: 'key_1' });
  assert.equal(lines[1], '12:00:00.000 INFO  GET /v1/pets 200 0.5ms key=key_1 id=r\n');
  assert.throws(() => createLogger({ level: 'loud' as 'info' }), TypeError);
});

test('warnings and errors can go to their own stream, the rest to the main one', () => {
  const out: string[] = [];
  const problems: string[] = [];
  const logger = createLogger({
    level: 'info',
    write: (line) => out.push(line),
    writeProblem: (line) => problems.push(line),
  });
  logger.info('started');
  logger.warn('torn tail');
  logger.error('failed');
  logger.access?.({ requestId: 'r', method: 'GET', path: '/v1/pets', status: 200, durationMs: 1, keyId: undefined });
  assert.deepEqual(
    out.map((line) => (JSON.parse(line) as { msg: string }).msg),
    ['started', 'request'],
  );
  assert.deepEqual(
    problems.map((line) => (JSON.parse(line) as { msg: string }).msg),
    ['torn tail', 'failed'],
  );
});
