// Retries against a scripted stub server: Retry-After honoured, backoff without it, one Idempotency-Key
// for every attempt of a POST, network failures repeated only where that is safe, and the deadline.
// A fake sleep advances a ManualClock, so no test waits for real.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, test } from 'node:test';
import { AnimalStoreClient, type AnimalStoreClientOptions, AnimalStoreError } from '../../src/client/index.js';
import { ManualClock } from '../../src/core/clock.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Step = (res: ServerResponse, req: IncomingMessage) => void;

const PET = { id: 1, name: 'Rex', categoryId: 1, status: 'available' };
let stub: Server;
let baseUrl: string;
let script: Step[] = [];
let seen: Seen[] = [];

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
  };
const refused = (status: number, code: string, retryAfter?: string): Step =>
  json(
    status,
    { code, message: `${code} for now`, status },
    {
      ...(retryAfter !== undefined && { 'retry-after': retryAfter }),
      'x-request-id': 'from-the-stub',
    },
  );
/** Cuts the connection without an answer, as a crash or a network failure after the request left. */
const hangUp: Step = (res) => res.socket?.destroy();

before(async () => {
  stub = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const step = script.shift() ?? json(500, { code: 'internal_error', message: 'script ran out', status: 500 });
      step(res, req);
    });
  });
  await new Promise<void>((done) => stub.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/v1`;
});

after(() => new Promise<void>((done) => stub.close(() => done())));

beforeEach(() => {
  script = [];
  seen = [];
});

/** A client on the stub whose sleeps are recorded and move the clock instead of waiting. */
function scriptedClient(options: Partial<AnimalStoreClientOptions> = {}): {
  client: AnimalStoreClient;
  sleeps: number[];
  clock: ManualClock;
} {
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
  const sleeps: number[] = [];
  const client = new AnimalStoreClient({
    baseUrl,
    apiKey: 'stub-key-0123456789',
    clock,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock.advance(ms);
    },
    ...options,
  });
  return { client, sleeps, clock };
}

async function failure(promise: Promise<unknown>): Promise<AnimalStoreError> {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AnimalStoreError, String(error));
  return error;
}

test('a 429 with Retry-After: 1 is sent again after 1 s, and the second answer is returned', async () => {
  script = [refused(429, 'rate_limited', '1'), json(201, PET)];
  const { client, sleeps } = scriptedClient();
  assert.deepEqual(await client.createPet({ name: 'Rex', categoryId: 1 }), PET);
  assert.deepEqual(sleeps, [1000]);
  assert.equal(seen.length, 2);
  await client.close();
});

test('a retried POST carries the same Idempotency-Key and request id on every attempt', async () => {
  script = [refused(503, 'unavailable', '5'), refused(429, 'rate_limited', '1'), json(201, PET)];
  const { client } = scriptedClient();
  await client.createPet({ name: 'Rex', categoryId: 1 });
  assert.equal(seen.length, 3);
  const keys = seen.map((request) => request.headers['idempotency-key']);
  assert.match(keys[0] as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual(new Set(keys).size, 1);
  assert.equal(new Set(seen.map((request) => request.headers['x-request-id'])).size, 1);
  assert.deepEqual(
    seen.map((request) => JSON.parse(request.body)),
    Array(3).fill({ name: 'Rex', categoryId: 1 }),
  );
  assert.ok(seen.every((request) => request.headers.authorization === 'Bearer stub-key-0123456789'));
  await client.close();
});

test("the caller's own Idempotency-Key is the one sent on every attempt of placeOrder", async () => {
  script = [
    refused(503, 'unavailable'),
    json(201, { id: 1, petId: 7, status: 'placed', createdAt: '2030-01-01T00:00:00.000Z' }),
  ];
  const { client } = scriptedClient();
  await client.placeOrder(7, { idempotencyKey: 'order-7-try' });
  assert.deepEqual(
    seen.map((request) => request.headers['idempotency-key']),
    ['order-7-try', 'order-7-try'],
  );
  await client.close();
});

test("the POSTs of webhooks and events are retried with one Idempotency-Key, the caller's when given", async () => {
  const event = {
    id: 'evt_1',
    type: 'webhook.test',
    timestamp: '2030-01-01T00:00:00.000Z',
    data: { webhookId: 'wh_1' },
  };
  script = [refused(503, 'unavailable'), json(202, event), hangUp, json(202, event)];
  const { client } = scriptedClient();
  assert.deepEqual(await client.testWebhook('wh_1'), event);
  assert.deepEqual(await client.redeliverEvent('evt_1', { webhookId: 'wh_1' }, { idempotencyKey: 'again-1' }), event);
  assert.deepEqual(
    seen.map((request) => [request.method, request.url, request.body]),
    [
      ['POST', '/v1/webhooks/wh_1/test', ''],
      ['POST', '/v1/webhooks/wh_1/test', ''],
      ['POST', '/v1/events/evt_1/redeliver', '{"webhookId":"wh_1"}'],
      ['POST', '/v1/events/evt_1/redeliver', '{"webhookId":"wh_1"}'],
    ],
  );
  const keys = seen.map((request) => request.headers['idempotency-key']);
  assert.match(keys[0] as string, /^[0-9a-f-]{36}$/);
  assert.deepEqual(keys, [keys[0], keys[0], 'again-1', 'again-1']);
  await client.close();
});

test('without Retry-After the waits back off exponentially with full jitter', async () => {
  script = [refused(503, 'unavailable'), refused(503, 'unavailable'), refused(503, 'unavailable'), json(200, [])];
  const { client, sleeps } = scriptedClient({ retry: { baseDelayMs: 100 } });
  await client.listPets();
  // random() = 0.5: half of 100, 200, 400.
  assert.deepEqual(sleeps, [50, 100, 200]);
  await client.close();
});

test('after maxAttempts the last refusal is thrown, with its code, request id and the attempt count', async () => {
  script = Array.from({ length: 3 }, () => refused(429, 'rate_limited', '1'));
  const { client, sleeps } = scriptedClient({ retry: { maxAttempts: 3 } });
  const error = await failure(client.listPets());
  assert.deepEqual(
    [error.status, error.code, error.requestId, error.attempts],
    [429, 'rate_limited', 'from-the-stub', 3],
  );
  assert.deepEqual(sleeps, [1000, 1000]);
  await client.close();
});

test('the deadline gives up: no wait that would reach it, and the refusal is thrown at once', async () => {
  script = [
    refused(429, 'rate_limited', '1'),
    refused(429, 'rate_limited', '1'),
    refused(429, 'temporarily_banned', '900'),
  ];
  const { client, sleeps } = scriptedClient({ retry: { deadlineMs: 10_000, maxAttempts: 100 } });
  const error = await failure(client.listPets());
  assert.equal(error.code, 'temporarily_banned');
  assert.equal(error.attempts, 3);
  assert.deepEqual(sleeps, [1000, 1000]);
  await client.close();
});

test('the deadline also bounds a request in flight', async () => {
  // The answer would come after 20 s; the deadline of 150 ms ends the wait long before (the bound below
  // leaves a busy machine seconds to spare).
  script = [(res, req) => setTimeout(() => json(200, [])(res, req), 20_000).unref()];
  const { client } = scriptedClient({ clock: undefined, sleep: undefined, retry: { deadlineMs: 150 } });
  const startedMs = performance.now();
  const error = await failure(client.listPets());
  assert.equal(error.code, 'deadline_exceeded');
  assert.equal(error.status, 0);
  assert.ok(performance.now() - startedMs < 10_000);
  await client.close();
});

test('answers other than 429 and 503 are not retried', async () => {
  script = [refused(409, 'conflict'), refused(500, 'internal_error')];
  const { client, sleeps } = scriptedClient();
  assert.equal((await failure(client.placeOrder(1))).code, 'conflict');
  assert.equal((await failure(client.listPets())).code, 'internal_error');
  assert.deepEqual(sleeps, []);
  await client.close();
});

test('retry: false sends each request once', async () => {
  script = [refused(429, 'rate_limited', '1')];
  const { client, sleeps } = scriptedClient({ retry: false });
  assert.equal((await failure(client.listPets())).attempts, 1);
  assert.deepEqual(sleeps, []);
  await client.close();
});

test('a POST cut off by a network failure is sent again with its Idempotency-Key', async () => {
  script = [hangUp, json(201, PET)];
  const { client } = scriptedClient();
  assert.deepEqual(await client.createPet({ name: 'Rex', categoryId: 1 }), PET);
  assert.equal(seen.length, 2);
  assert.equal(seen[0]?.headers['idempotency-key'], seen[1]?.headers['idempotency-key']);
  await client.close();
});

test('a GET cut off by a network failure is sent again', async () => {
  script = [hangUp, json(200, PET)];
  const { client } = scriptedClient();
  assert.deepEqual(await client.getOrder(1), PET);
  assert.equal(seen.length, 2);
  await client.close();
});

test('a PATCH or DELETE cut off after it was sent is not repeated: it may have landed', async () => {
  script = [hangUp, hangUp];
  const { client, sleeps } = scriptedClient();
  const patch = await failure(client.updateOrder(1, 'delivered'));
  assert.deepEqual([patch.code, patch.status, patch.attempts], ['network_error', 0, 1]);
  assert.match(patch.message, /PATCH \/v1\/store\/orders\/1/);
  assert.equal((await failure(client.cancelOrder(1))).code, 'network_error');
  assert.equal(seen.length, 2);
  assert.deepEqual(sleeps, []);
  await client.close();
});

test('a refused connection is retried for any method, then reported as network_error', async () => {
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((done) => closed.close(() => done()));
  const { client, sleeps } = scriptedClient({ baseUrl: `http://127.0.0.1:${port}/v1`, retry: { maxAttempts: 2 } });
  const error = await failure(client.cancelOrder(1));
  assert.deepEqual([error.code, error.attempts], ['network_error', 2]);
  assert.equal(sleeps.length, 1);
  await client.close();
});

test("an answer that is not the API's is unexpected_response", async () => {
  script = [
    (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'),
    (res) => res.writeHead(200).end('not json'),
  ];
  const { client } = scriptedClient();
  const gateway = await failure(client.listPets());
  assert.deepEqual([gateway.status, gateway.code], [502, 'unexpected_response']);
  assert.match(gateway.message, /Bad gateway/);
  assert.equal((await failure(client.listPets())).code, 'unexpected_response');
  await client.close();
});

test('the iterator refuses a next link to another origin, so the key never leaves', async () => {
  script = [json(200, [PET], { link: '<http://elsewhere.test/v1/pets?cursor=x>; rel="next"', 'x-total-count': '2' })];
  const { client } = scriptedClient();
  const iterator = client.pets();
  assert.deepEqual((await iterator.next()).value, PET);
  const error = await failure(iterator.next());
  assert.equal(error.code, 'unexpected_response');
  assert.equal(seen.length, 1);
  await client.close();
});

test('a call on a closed client fails at once with network_error', async () => {
  const { client, sleeps } = scriptedClient();
  await client.close();
  const error = await failure(client.listPets());
  assert.deepEqual([error.code, error.attempts], ['network_error', 1]);
  assert.deepEqual(sleeps, []);
});
