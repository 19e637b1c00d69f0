// The Idempotency-Key protocol of HTTP, alone and through a dispatcher: the field and its checks, the
// scope per API key and route, the claim with the status the route answers with, the release, and a
// replay answered with the status remembered (not the route's constant) and Idempotent-Replayed: true.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { request } from 'undici';
import { ManualClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import { IdempotencyKeys, idempotencyKeyOf, idempotencyScope } from '../../src/http/idempotency-key.js';
import { ResponseHeaders } from '../../src/http/response-headers.js';
import type { Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { bodyFingerprint } from '../../src/idempotency/canonical-json.js';
import { type Arrival, IDEMPOTENCY_TTL_MS, Idempotency } from '../../src/idempotency/idempotency.js';
import { MemoryIdempotencyTable } from '../../src/store/embedded/idempotency-table.js';
import { DISPATCH_KEY, serveDispatcher } from '../helpers/dispatcher.js';
import { fakeRequest } from '../helpers/fake-http.js';
import { testRoute } from '../helpers/routes.js';

const withBody = { 'content-length': '2' };
const invalidHeader = (message: string) => (error: unknown) =>
  error instanceof ApiError && error.code === 'invalid_header' && error.message === message;

test('an Idempotency-Key is 1 to 255 visible ASCII characters, sent once', () => {
  assert.equal(idempotencyKeyOf(fakeRequest({ headers: { host: 'x' } })), undefined);
  assert.equal(idempotencyKeyOf(fakeRequest({ headers: { 'idempotency-key': 'x'.repeat(255) } })), 'x'.repeat(255));
  for (const key of ['', 'x'.repeat(256), 'has space', 'ünicode'])
    assert.throws(
      () => idempotencyKeyOf(fakeRequest({ headers: { 'idempotency-key': key } })),
      invalidHeader('Header "Idempotency-Key" must be 1 to 255 visible ASCII characters'),
      JSON.stringify(key),
    );
  const repeated = fakeRequest({ headers: { ...withBody, 'idempotency-key': ['a', 'a'] } });
  assert.throws(() => idempotencyKeyOf(repeated), invalidHeader('Header "Idempotency-Key" must be sent once'));
  // A POST that takes no body (a rotation) is carried out on its key alone: a repeat is refused there too.
  assert.throws(
    () => idempotencyKeyOf(fakeRequest({ headers: { 'idempotency-key': ['a', 'a'] } })),
    invalidHeader('Header "Idempotency-Key" must be sent once'),
  );
  assert.equal(
    idempotencyKeyOf(fakeRequest({ headers: { 'idempotency-key': ['a', 'a'] } }), true),
    undefined,
    'a request without the body its route needs is refused for that instead',
  );
});

test('keys are scoped per API key and per route, as the first release wrote scopes', () => {
  const route = testRoute({
    method: 'POST',
    path: '/pets',
    operationId: 'createPet',
    handle: () => ({ status: 201, body: '' }),
  });
  assert.equal(idempotencyScope('key_1', route, {}), 'key_1 POST /pets');
});

test("a route's path parameters are part of the scope: one resource's key is not another's", () => {
  const route = testRoute({
    method: 'POST',
    path: '/webhooks/{webhookId}/test',
    operationId: 'testWebhook',
    handle: () => ({ status: 202, body: '' }),
  });
  assert.equal(idempotencyScope('key_1', route, { webhookId: 'wh_a' }), 'key_1 POST /webhooks/wh_a/test');
  assert.notEqual(
    idempotencyScope('key_1', route, { webhookId: 'wh_a' }),
    idempotencyScope('key_1', route, { webhookId: 'wh_b' }),
  );
});

test('a claim is taken only on a route that takes keys, with the status the route answers with', async () => {
  const arrivals: string[] = [];
  const keys = new IdempotencyKeys(
    async (scope, key, status) => {
      arrivals.push(`${scope} | ${key} | ${status}`);
      return { scope, key, status, claimant: 'c', claimed: true, replayedStatus: undefined, leave: async () => {} };
    },
    () => {},
  );
  const handle = () => ({ status: 202, body: '{}' });
  const plain = testRoute({ method: 'POST', path: '/plain', operationId: 'plain', handle });
  const queued = testRoute({ ...plain, path: '/jobs', acceptsIdempotencyKey: true, rememberedStatus: 202 });
  const req = fakeRequest({ headers: { ...withBody, 'idempotency-key': 'k1' } });
  assert.equal(keys.claim(req, plain, {}, 'key_1'), undefined);
  assert.equal(keys.claim(fakeRequest({ headers: withBody }), queued, {}, 'key_1'), undefined);
  await keys.claim(req, queued, {}, 'key_1');
  assert.deepEqual(arrivals, ['key_1 POST /jobs | k1 | 202']);
});

test('a replay is sent with the status remembered and Idempotent-Replayed; a failed release is logged, not answered', async () => {
  const logged: unknown[] = [];
  const keys = new IdempotencyKeys(
    () => Promise.reject(new Error('unused')),
    (_requestId, error) => logged.push(error),
  );
  const arrival = (replayedStatus: number | undefined): Arrival => ({
    scope: 's',
    key: 'k',
    claimant: 'c',
    status: 201,
    claimed: true,
    replayedStatus,
    leave: () => Promise.reject(new Error('the store went away')),
  });
  const answer = { status: 201, body: '{}' };
  const first = new ResponseHeaders('r');
  assert.equal(keys.statusOf(answer, arrival(undefined), first), 201);
  assert.equal(keys.statusOf(answer, undefined, first), 201);
  assert.deepEqual(first.list, ['x-request-id', 'r']);
  const replay = new ResponseHeaders('r');
  assert.equal(keys.statusOf(answer, arrival(202), replay), 202);
  assert.deepEqual(replay.list, ['x-request-id', 'r', 'idempotent-replayed', 'true']);
  await keys.release(arrival(undefined), 'r');
  assert.equal((logged[0] as Error).message, 'the store went away');
});

/** A dispatcher whose POST /jobs runs once per key over `table`, answering `status` (202: queued). */
async function jobsService(table: MemoryIdempotencyTable, clock: ManualClock, status: 201 | 202) {
  const idempotency = new Idempotency(table, clock);
  let carriedOut = 0;
  const router = new Router<Route>().add(
    'POST',
    '/jobs',
    testRoute({
      method: 'POST',
      path: '/jobs',
      operationId: 'queueJob',
      bodyMediaTypes: ['application/json'],
      acceptsIdempotencyKey: true,
      rememberedStatus: status,
      handle: async (input) => {
        const outcome = await idempotency.run(input.arrival, input.body, async (record) => {
          const json = `{"job":${++carriedOut}}`;
          if (record !== undefined) table.remember({ ...record, body: json }, clock.now());
          return json;
        });
        return { status, body: outcome.replayed ? outcome.body : outcome.item };
      },
    }),
  );
  const served = await serveDispatcher({
    router,
    clock,
    arrive: (scope, key, remembered) => idempotency.arrive(scope, key, remembered),
  });
  const post = async (key: string, body: string) => {
    const response = await request(`${served.origin}/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${DISPATCH_KEY}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  };
  return { post, served, carriedOut: () => carriedOut };
}

test('a route that answers 202 is replayed as 202, once carried out', async () => {
  const clock = new ManualClock(Date.UTC(2027, 0, 1));
  const jobs = await jobsService(new MemoryIdempotencyTable(), clock, 202);
  try {
    const first = await jobs.post('job-1', '{"a":1}');
    assert.equal(first.status, 202);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await jobs.post('job-1', '{ "a" : 1.0 }');
    assert.equal(again.status, 202);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.text, first.text);
    assert.equal(jobs.carriedOut(), 1);
  } finally {
    jobs.served.close();
  }
});

test('a replay answers with the status read back from the store, even where the route now answers another', async () => {
  // An answer remembered as 202 (by an earlier version of the route); the route now answers 201.
  const clock = new ManualClock(Date.UTC(2027, 0, 1));
  const table = new MemoryIdempotencyTable();
  table.remember(
    {
      scope: 'key_1 POST /jobs',
      key: 'job-2',
      fingerprint: bodyFingerprint({ a: 2 }),
      status: 202,
      body: '{"job":0}',
      expiresAtMs: clock.now() + IDEMPOTENCY_TTL_MS,
    },
    clock.now(),
  );
  const jobs = await jobsService(table, clock, 201);
  try {
    const replay = await jobs.post('job-2', '{"a":2}');
    assert.equal(replay.status, 202, 'the status remembered, not the route’s');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.text, '{"job":0}');
    assert.equal(jobs.carriedOut(), 0);
    assert.equal((await jobs.post('job-3', '{"a":2}')).status, 201, 'a new key is carried out as the route answers');
  } finally {
    jobs.served.close();
  }
});
