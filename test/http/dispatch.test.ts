// The pipeline's own guarantees: bugs become a generic 500 logged with the request id, never detailed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Type from 'typebox';
import { request } from 'undici';
import { ApiError } from '../../src/core/errors.js';
import { defineRoute, type Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { DISPATCH_KEY, serveDispatcher } from '../helpers/dispatcher.js';
import { sendRaw, statusesIn } from '../helpers/raw-http.js';
import { described } from '../helpers/routes.js';

const AUTH = { authorization: `Bearer ${DISPATCH_KEY}` };

test('an error that is not an ApiError is a 500 internal_error, logged with the request id and never detailed', async () => {
  const logged: Array<{ requestId: string; error: unknown }> = [];
  const boom = defineRoute({
    method: 'GET',
    path: '/boom',
    operation: described('boom'),
    handle: async () => {
      throw new Error('secret internal detail /etc/passwd');
    },
  });
  const router = new Router<Route>().add('GET', '/boom', boom);
  const served = await serveDispatcher({ router, logError: (requestId, error) => logged.push({ requestId, error }) });
  try {
    const response = await request(`${served.origin}/v1/boom`, { headers: { ...AUTH, 'x-request-id': 'req-42' } });
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
    served.close();
  }
});

test('beyond the in-flight bound a request gets an immediate 503 with Retry-After, and service resumes after', async () => {
  // A holder, so TypeScript does not narrow the callback the route sets away.
  const gate: { release: (() => void) | undefined } = { release: undefined };
  const slow = defineRoute({
    method: 'GET',
    path: '/slow',
    operation: described('slow'),
    handle: () =>
      new Promise((resolve) => {
        gate.release = () => resolve({ status: 200, body: '{}' });
      }),
  });
  const router = new Router<Route>().add('GET', '/slow', slow);
  const served = await serveDispatcher({ router, maxInFlight: 1, keyLimits: { perMinute: 1000, perDay: 10000 } });
  try {
    const url = `${served.origin}/v1/slow`;
    const held = async (): Promise<() => void> => {
      while (gate.release === undefined) await new Promise((resolve) => setImmediate(resolve));
      const release = gate.release;
      gate.release = undefined;
      return release;
    };
    const first = request(url, { headers: AUTH });
    const releaseFirst = await held();
    const second = await request(url, { headers: AUTH });
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
    const third = request(url, { headers: AUTH });
    (await held())();
    assert.equal((await third).statusCode, 200);
  } finally {
    served.close();
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
    const route = defineRoute({
      method: 'POST',
      path,
      operation: described(path.slice(1), {
        acceptsIdempotencyKey: true,
        requestBody: { schema: Type.Object({}), mediaTypes: { 'application/json': { example: {} } } },
      }),
      handle: async () => {
        if (fails) throw new ApiError('conflict', 'refused');
        return { status: 201, body: '{}' };
      },
    });
    router.add('POST', path, route);
  }
  const served = await serveDispatcher({
    router,
    keyLimits: { perMinute: 1000, perDay: 10000 },
    arrive: (scope, key, status) =>
      Promise.resolve({
        scope,
        key,
        claimant: 'c',
        status,
        claimed: true,
        replayedStatus: undefined,
        leave: () =>
          new Promise<void>((resolve) =>
            setTimeout(() => {
              events.push(`released ${key}`);
              resolve();
            }, 30),
          ),
      }),
  });
  try {
    for (const [path, status] of [
      ['/ok', 201],
      ['/fails', 409],
    ] as const) {
      const response = await request(`${served.origin}/v1${path}`, {
        method: 'POST',
        headers: { ...AUTH, 'content-type': 'application/json', 'idempotency-key': path },
        body: '{}',
      });
      events.push(`answered ${path}`);
      assert.equal(response.statusCode, status);
      await response.body.dump();
    }
    assert.deepEqual(events, ['released /ok', 'answered /ok', 'released /fails', 'answered /fails']);
  } finally {
    served.close();
  }
});

test('busiest() tells the most requests in flight at once since it was last asked, then starts from those in flight; answered() counts answers', async () => {
  const releases: Array<() => void> = [];
  const slow = defineRoute({
    method: 'GET',
    path: '/slow',
    operation: described('slow'),
    handle: () =>
      new Promise((resolve) => {
        releases.push(() => resolve({ status: 200, body: '{}' }));
      }),
  });
  const router = new Router<Route>().add('GET', '/slow', slow);
  const served = await serveDispatcher({ router, keyLimits: { perMinute: 1000, perDay: 10000 } });
  try {
    const send = async (): Promise<void> => {
      const response = await request(`${served.origin}/v1/slow`, { headers: AUTH });
      await response.body.dump();
    };
    assert.equal(served.dispatcher.busiest(), 0);
    const three = [send(), send(), send()];
    while (releases.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    releases.splice(0, 2).forEach((release) => release());
    while (served.dispatcher.inFlight() > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(served.dispatcher.busiest(), 3, 'the peak, although one is in flight now');
    assert.equal(served.dispatcher.answered(), 2, 'answered: the two released');
    assert.equal(served.dispatcher.busiest(), 1, 'asked again: those in flight at the last call');
    releases.splice(0).forEach((release) => release());
    await Promise.all(three);
    assert.equal(served.dispatcher.busiest(), 1);
    assert.equal(served.dispatcher.busiest(), 0);
    assert.equal(served.dispatcher.answered(), 3);
  } finally {
    served.close();
  }
});

test('the API requests read together are served together, once all are read, each in flight from its arrival', async () => {
  const seenInFlight: number[] = [];
  let inFlight = (): number => 0;
  const count = defineRoute({
    method: 'GET',
    path: '/count',
    operation: described('count'),
    // Answered at once: served as each request arrived, the first would find itself alone in flight.
    handle: () => {
      seenInFlight.push(inFlight());
      return { status: 200, body: '{}' };
    },
  });
  const router = new Router<Route>().add('GET', '/count', count);
  const served = await serveDispatcher({ router, keyLimits: { perMinute: 1000, perDay: 10000 } });
  inFlight = () => served.dispatcher.inFlight();
  try {
    // Five requests in one write: Node parses them in one read, in one poll phase of the event loop.
    const one = `GET /v1/count HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${DISPATCH_KEY}\r\n\r\n`;
    const raw = await sendRaw(served.origin, one.repeat(5), 1000);
    assert.deepEqual(statusesIn(raw), [200, 200, 200, 200, 200]);
    assert.deepEqual(seenInFlight, [5, 4, 3, 2, 1]);
  } finally {
    served.close();
  }
});

test('a bug in an answer made before the API is reached (here /healthz) is a 500 for that request alone: logged, and the process serves on', async () => {
  const logged: Array<{ requestId: string; error: unknown }> = [];
  let broken = true;
  const served = await serveDispatcher({
    isAccepting: () => {
      if (broken) throw new Error('secret detail of a bug');
      return true;
    },
    logError: (requestId, error) => logged.push({ requestId, error }),
  });
  try {
    const response = await request(`${served.origin}/healthz`, { headers: { 'x-request-id': 'req-9' } });
    const text = await response.body.text();
    assert.equal(response.statusCode, 500);
    assert.equal(JSON.parse(text).code, 'internal_error');
    assert.doesNotMatch(text, /secret/);
    assert.equal(logged[0]?.requestId, 'req-9');
    broken = false;
    const next = await request(`${served.origin}/healthz`);
    assert.equal(next.statusCode, 200);
    await next.body.text();
  } finally {
    served.close();
  }
});
