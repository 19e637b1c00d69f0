// The pipeline's own guarantees: bugs become a generic 500 logged with the request id, never detailed.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { request } from 'undici';
import { type ApiKey, hashKey } from '../../src/auth/api-key.js';
import { KeyRing } from '../../src/auth/key-ring.js';
import { ManualClock } from '../../src/clock.js';
import { ApiError } from '../../src/errors.js';
import { createDispatcher } from '../../src/http/dispatch.js';
import type { Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { Idempotency } from '../../src/idempotency/idempotency.js';
import { MemoryIdempotencyTable } from '../../src/store/embedded/idempotency-table.js';
import { MemoryLimiter } from '../../src/limits/index.js';

const KEY = 'dispatch-test-key-0123456789';
const record: ApiKey = {
  id: 'key_1',
  name: 't',
  plan: 'free',
  perMinute: 60,
  perDay: 1000,
  hash: hashKey(KEY),
  createdAt: '',
  revokedAt: null,
};

test('an error that is not an ApiError is a 500 internal_error, logged with the request id and never detailed', async () => {
  const logged: Array<{ requestId: string; error: unknown }> = [];
  const router = new Router<Route>().add('GET', '/boom', {
    method: 'GET',
    path: '/boom',
    operationId: 'boom',
    handle: async () => {
      throw new Error('secret internal detail /etc/passwd');
    },
  });
  const clock = new ManualClock(Date.UTC(2027, 0, 1));
  const handler = createDispatcher({
    basePath: '/v1',
    router,
    keys: new KeyRing([record]),
    limiter: new MemoryLimiter(clock),
    clock,
    maxBodyBytes: 1024,
    maxUrlBytes: 8192,
    trustProxy: false,
    maxInFlight: 10,
    cors: undefined,
    openapiJson: '{}',
    arrive: (scope, key) => new Idempotency(new MemoryIdempotencyTable(), clock).arrive(scope, key),
    checkReady: async () => {},
    isAccepting: () => true,
    logError: (requestId, error) => logged.push({ requestId, error }),
  });
  const server = createServer(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await request(`http://127.0.0.1:${port}/v1/boom`, {
      headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'req-42' },
    });
    const text = await response.body.text();
    assert.equal(response.statusCode, 500);
    assert.deepEqual(JSON.parse(text), {
      code: 'internal_error',
      message: 'An unexpected error occurred; quote the X-Request-Id header when reporting it.',
      status: 500,
    });
    assert.doesNotMatch(text, /secret|passwd|at /);
    assert.equal(response.headers['x-ratelimit-limit'], '60');
    assert.equal(logged.length, 1);
    assert.equal(logged[0]?.requestId, 'req-42');
  } finally {
    server.close();
  }
});

test('beyond the in-flight bound a request gets an immediate 503 with Retry-After, and service resumes after', async () => {
  // A holder, so TypeScript does not narrow the callback the route sets away.
  const gate: { release: (() => void) | undefined } = { release: undefined };
  const router = new Router<Route>().add('GET', '/slow', {
    method: 'GET',
    path: '/slow',
    operationId: 'slow',
    handle: () =>
      new Promise((resolve) => {
        gate.release = () => resolve({ status: 200, body: '{}' });
      }),
  });
  const clock = new ManualClock(Date.UTC(2027, 0, 1));
  const handler = createDispatcher({
    basePath: '/v1',
    router,
    keys: new KeyRing([{ ...record, perMinute: 1000, perDay: 10000 }]),
    limiter: new MemoryLimiter(clock),
    clock,
    maxBodyBytes: 1024,
    maxUrlBytes: 8192,
    trustProxy: false,
    maxInFlight: 1,
    cors: undefined,
    openapiJson: '{}',
    arrive: (scope, key) => new Idempotency(new MemoryIdempotencyTable(), clock).arrive(scope, key),
    checkReady: async () => {},
    isAccepting: () => true,
    logError: () => {},
  });
  const server = createServer(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/v1/slow`;
    const headers = { authorization: `Bearer ${KEY}` };
    const held = async (): Promise<() => void> => {
      while (gate.release === undefined) await new Promise((resolve) => setImmediate(resolve));
      const release = gate.release;
      gate.release = undefined;
      return release;
    };
    const first = request(url, { headers });
    const releaseFirst = await held();
    const second = await request(url, { headers });
    assert.equal(second.statusCode, 503);
    assert.equal(second.headers['retry-after'], '1');
    assert.equal(
      second.headers['x-ratelimit-limit'],
      '1000',
      'the 503 is an API answer: it counts and carries the limit headers',
    );
    assert.equal(((await second.body.json()) as { code: string }).code, 'unavailable');
    releaseFirst();
    assert.equal((await first).statusCode, 200);
    const third = request(url, { headers });
    (await held())();
    assert.equal((await third).statusCode, 200);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("an Idempotency-Key's claim is released before the answer is sent, on success and on error", async () => {
  // A store whose release is a round trip of its own (PostgreSQL): here it completes 30 ms later. A client
  // that retries the moment it has an answer must find the key free, so the answer waits for the release.
  const events: string[] = [];
  const router = new Router<Route>();
  for (const [path, fails] of [
    ['/ok', false],
    ['/fails', true],
  ] as const) {
    router.add('POST', path, {
      method: 'POST',
      path,
      operationId: path.slice(1),
      bodyMediaTypes: ['application/json'],
      acceptsIdempotencyKey: true,
      handle: async () => {
        if (fails) throw new ApiError('conflict', 'refused');
        return { status: 201, body: '{}' };
      },
    });
  }
  const clock = new ManualClock(Date.UTC(2027, 0, 1));
  const handler = createDispatcher({
    basePath: '/v1',
    router,
    keys: new KeyRing([{ ...record, perMinute: 1000, perDay: 10000 }]),
    limiter: new MemoryLimiter(clock),
    clock,
    maxBodyBytes: 1024,
    maxUrlBytes: 8192,
    trustProxy: false,
    maxInFlight: 10,
    cors: undefined,
    openapiJson: '{}',
    arrive: (scope, key) =>
      Promise.resolve({
        scope,
        key,
        claimant: 'c',
        claimed: true,
        leave: () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              events.push(`released ${key}`);
              resolve();
            }, 30),
          ),
      }),
    checkReady: async () => {},
    isAccepting: () => true,
    logError: () => {},
  });
  const server = createServer(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    for (const [path, status] of [
      ['/ok', 201],
      ['/fails', 409],
    ] as const) {
      const response = await request(`http://127.0.0.1:${port}/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': path },
        body: '{}',
      });
      events.push(`answered ${path}`);
      assert.equal(response.statusCode, status);
      await response.body.dump();
    }
    assert.deepEqual(events, ['released /ok', 'answered /ok', 'released /fails', 'answered /fails']);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
