// docs/events.md against a real server and real receivers on loopback: subscriptions and their rules,
// events recorded with every change, deliveries signed as Standard Webhooks says (checked with the
// `standardwebhooks` package), retries, 410, redirects, rotation, test events, redelivery and recovery.
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { call, createPet, startServer, type TestServer } from '../helpers/server.js';
import { undiciHttp2Cannot } from '../helpers/transport.js';
import { type ReceivedRequest, startReceiver } from './receiver.js';

/** Retries 40 ms apart (the schedule's jitter keeps them within 32 to 48 ms), so a test sees several. */
const QUICK_RETRIES = [40, 40, 40];
const OTHER_KEY = 'other-key-0123456789abcdef';

let server: TestServer;
before(async () => {
  server = await startServer({
    webhookAllowPrivate: true,
    webhookRetryMs: QUICK_RETRIES,
    keys: [
      { key: 'test-key-0123456789abcdef', plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 },
      { key: OTHER_KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 },
    ],
  });
});
after(() => server.close());

interface WebhookJson {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: string;
  disabledReason: string | null;
  createdAt: string;
  secret?: string;
}

interface EventJson {
  id: string;
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Waits until `check` holds, looking again each few ms; fails after `deadlineMs` (generous: a busy machine). */
async function eventually(check: () => boolean | Promise<boolean>, what: string, deadlineMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > deadlineMs) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function subscribe(url: string, events: string[] = ['pet.created'], headers = {}): Promise<WebhookJson> {
  const reply = await call(server, 'POST', '/v1/webhooks', { json: { url, events }, headers });
  assert.equal(reply.status, 201, reply.text);
  return reply.json as WebhookJson;
}

/** A receiver answering every request with `status` (and `headers`), or as `answer` says per request. */
function answering(status: number, headers: Record<string, string> = {}): (req: unknown, res: ServerResponse) => void {
  return (_req, res) => res.writeHead(status, headers).end('ok');
}

function verified(secret: string, request: ReceivedRequest): EventJson {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers) as EventJson;
}

test('a subscription is made with 201, Location, its secret, and the contract key order', async () => {
  const receiver = await startReceiver(answering(204));
  try {
    const reply = await call(server, 'POST', '/v1/webhooks', {
      json: { url: `${receiver.url}/hook`, events: ['pet.created', 'order.updated'] },
    });
    assert.equal(reply.status, 201);
    const webhook = reply.json as WebhookJson;
    assert.deepEqual(Object.keys(webhook), [
      'id',
      'url',
      'events',
      'description',
      'status',
      'disabledReason',
      'createdAt',
      'secret',
    ]);
    assert.match(webhook.id, /^wh_[A-Za-z0-9]+$/);
    assert.equal(reply.headers.location, `/v1/webhooks/${webhook.id}`);
    assert.equal(webhook.description, null);
    assert.equal(webhook.status, 'enabled');
    assert.equal(webhook.disabledReason, null);
    assert.match(webhook.secret ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from((webhook.secret ?? '').slice('whsec_'.length), 'base64').length, 32);
    const read = await call(server, 'GET', `/v1/webhooks/${webhook.id}`);
    assert.equal(read.status, 200);
    const { secret: _secret, ...withoutSecret } = webhook;
    assert.deepEqual(read.json, withoutSecret);
    const deleted = await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
    assert.equal(deleted.status, 204);
    // No content: no type, and no Content-Length (RFC 9110 §8.6); the other headers as on every answer.
    assert.equal(deleted.headers['content-type'], undefined);
    assert.equal(deleted.headers['content-length'], undefined);
    assert.equal(deleted.text, '');
    assert.ok(deleted.headers['x-request-id'] !== undefined && deleted.headers['x-ratelimit-limit'] !== undefined);
    // A description of null, as the API shows one that was never given, is taken as left out.
    const withNull = await call(server, 'POST', '/v1/webhooks', {
      json: { url: `${receiver.url}/hook`, events: ['pet.created'], description: null },
    });
    assert.equal(withNull.status, 201);
    assert.equal((withNull.json as WebhookJson).description, null);
    await call(server, 'DELETE', `/v1/webhooks/${(withNull.json as WebhookJson).id}`);
  } finally {
    await receiver.close();
  }
});

test('bad subscriptions are 400 invalid_body naming the field', async () => {
  const cases: Array<[unknown, string]> = [
    [{ url: 'https://hooks.example.com/x', events: ['pet.sold'] }, '/events'],
    [{ url: 'https://hooks.example.com/x', events: [] }, '/events'],
    [{ url: 'https://hooks.example.com/x', events: ['pet.created', 'pet.created'] }, '/events'],
    [{ url: 'https://hooks.example.com/x', events: ['webhook.test'] }, '/events'],
    [{ url: '/relative', events: ['pet.created'] }, '/url'],
    [{ url: 'ftp://hooks.example.com/x', events: ['pet.created'] }, '/url'],
    [{ url: 'https://user:pw@hooks.example.com/x', events: ['pet.created'] }, '/url'],
    [{ url: 'https://hooks.example.com/x#frag', events: ['pet.created'] }, '/url'],
    [{ url: 'https://hooks.example.com/x', events: ['pet.created'], secret: 'mine' }, '/secret'],
    [{ events: ['pet.created'] }, '/url'],
  ];
  for (const [body, path] of cases) {
    const reply = await call(server, 'POST', '/v1/webhooks', { json: body });
    assert.equal(reply.status, 400, JSON.stringify(body));
    const error = reply.json as { code: string; details?: Array<{ path: string }> };
    assert.equal(error.code, 'invalid_body', JSON.stringify(body));
    assert.ok(
      error.details?.some((detail) => detail.path === path),
      `${JSON.stringify(body)}: ${reply.text}`,
    );
  }
});

test('without --webhook-allow-private, a literal internal address is refused at subscription, naming the rule', async () => {
  const strict = await startServer();
  try {
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://[::1]/x',
      'http://10.1.2.3/x',
      'http://169.254.169.254/latest',
      'http://[::ffff:127.0.0.1]/x',
      'http://2130706433/x',
      'http://localhost/x',
    ]) {
      const reply = await call(strict, 'POST', '/v1/webhooks', { json: { url, events: ['pet.created'] } });
      assert.equal(reply.status, 400, url);
      assert.equal((reply.json as { code: string }).code, 'invalid_body');
      assert.match((reply.json as { message: string }).message, /url/, url);
    }
  } finally {
    await strict.close();
  }
});

test('a subscription belongs to its key: another key gets 404 on every route of it', async () => {
  const webhook = await subscribe('https://hooks.example.com/mine');
  const other = { authorization: `Bearer ${OTHER_KEY}` };
  for (const [method, path, json] of [
    ['GET', `/v1/webhooks/${webhook.id}`, undefined],
    ['PATCH', `/v1/webhooks/${webhook.id}`, { status: 'disabled' }],
    ['DELETE', `/v1/webhooks/${webhook.id}`, undefined],
    ['POST', `/v1/webhooks/${webhook.id}/rotate-secret`, undefined],
    ['POST', `/v1/webhooks/${webhook.id}/test`, undefined],
    ['GET', `/v1/webhooks/${webhook.id}/attempts`, undefined],
    ['POST', `/v1/webhooks/${webhook.id}/recover`, { since: '2026-01-01T00:00:00Z' }],
  ] as const) {
    const reply = await call(server, method, path, { headers: other, ...(json !== undefined && { json }) });
    assert.equal(reply.status, 404, `${method} ${path}`);
    assert.equal((reply.json as { code: string }).code, 'not_found');
  }
  const listed = (await call(server, 'GET', '/v1/webhooks?limit=100', { headers: other })).json as WebhookJson[];
  assert.ok(!listed.some((item) => item.id === webhook.id));
  await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
});

test('a key may have 20 subscriptions; the 21st is 409 conflict', async () => {
  const key = 'limit-key-0123456789abcdef';
  const limited = await startServer({ keys: [{ key, plan: 'enterprise', perMinute: 1_000_000, perDay: 1_000_000 }] });
  try {
    const headers = { authorization: `Bearer ${key}` };
    for (let index = 0; index < 20; index++) {
      const reply = await call(limited, 'POST', '/v1/webhooks', {
        headers,
        json: { url: `https://hooks.example.com/${index}`, events: ['pet.created'] },
      });
      assert.equal(reply.status, 201);
    }
    const refused = await call(limited, 'POST', '/v1/webhooks', {
      headers,
      json: { url: 'https://hooks.example.com/21', events: ['pet.created'] },
    });
    assert.equal(refused.status, 409);
    assert.equal((refused.json as { code: string }).code, 'conflict');
    const page = await call(limited, 'GET', '/v1/webhooks?limit=7', { headers });
    assert.equal((page.json as unknown[]).length, 7);
    assert.equal(page.headers['x-total-count'], '20');
    assert.match(String(page.headers.link), /^<\/v1\/webhooks\?limit=7&cursor=[^>]+>; rel="next"$/);
  } finally {
    await limited.close();
  }
});

test('a created pet is delivered, signed so that the standardwebhooks package verifies it, and listed in /v1/events', async () => {
  const receiver = await startReceiver(answering(200));
  try {
    const webhook = await subscribe(`${receiver.url}/in`, ['pet.created']);
    const pet = await createPet(server, { name: 'Signed', categoryId: 7 });
    await eventually(() => receiver.requests.some((request) => request.body.includes(`"id":${pet.id},`)), 'delivery');
    const request = receiver.requests.find((item) => item.body.includes(`"id":${pet.id},`)) as ReceivedRequest;
    assert.equal(request.method, 'POST');
    assert.equal(request.headers['content-type'], 'application/json');
    const event = verified(webhook.secret as string, request);
    assert.equal(event.type, 'pet.created');
    assert.deepEqual(Object.keys(event), ['id', 'type', 'timestamp', 'data']);
    assert.deepEqual(event.data, pet);
    assert.equal(request.headers['webhook-id'], event.id);
    assert.match(event.id, /^evt_/);
    assert.ok(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
    const read = await call(server, 'GET', `/v1/events/${event.id}`);
    assert.equal(read.status, 200);
    assert.equal(read.text, request.body);
    // On PostgreSQL an event is listed once every transaction older than it has ended: soon, not at once.
    await eventually(async () => {
      const listed = await call(server, 'GET', '/v1/events?type=pet.created&limit=100');
      return (listed.json as EventJson[]).some((item) => item.id === event.id);
    }, 'the event listed');
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await receiver.close();
  }
});

test('an order records order.created and pet.updated; delivering it, order.updated and pet.updated', async () => {
  const receiver = await startReceiver(answering(200));
  try {
    const webhook = await subscribe(receiver.url, ['order.created', 'order.updated', 'pet.updated']);
    const pet = await createPet(server, { name: 'Ordered', categoryId: 2 });
    const order = (await call(server, 'POST', '/v1/store/orders', { json: { petId: pet.id } })).json as {
      id: number;
    };
    await call(server, 'PATCH', `/v1/store/orders/${order.id}`, { json: { status: 'delivered' } });
    await eventually(() => receiver.requests.length >= 4, 'four deliveries');
    const events = receiver.requests.map((request) => verified(webhook.secret as string, request));
    const seen = events.map((event) => `${event.type}:${String(event.data.status)}`).sort();
    assert.deepEqual(seen, [
      'order.created:placed',
      'order.updated:delivered',
      'pet.updated:pending',
      'pet.updated:sold',
    ]);
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await receiver.close();
  }
});

test('a failed delivery is retried with the same webhook-id, and every attempt is listed newest first', async () => {
  let answered = 0;
  const receiver = await startReceiver((_req, res) => {
    answered++;
    res.writeHead(answered < 3 ? 500 : 200).end(answered < 3 ? 'not yet' : 'thanks');
  });
  try {
    const webhook = await subscribe(receiver.url);
    await createPet(server, { name: 'Retried', categoryId: 1 });
    await eventually(() => receiver.requests.length >= 3, 'three attempts');
    const ids = new Set(receiver.requests.map((request) => request.headers['webhook-id']));
    assert.equal(ids.size, 1);
    let attempts: Array<Record<string, unknown>> = [];
    await eventually(async () => {
      attempts = (await call(server, 'GET', `/v1/webhooks/${webhook.id}/attempts`)).json as typeof attempts;
      return attempts.length >= 3;
    }, 'attempts listed');
    assert.deepEqual(Object.keys(attempts[0] ?? {}), [
      'id',
      'eventId',
      'type',
      'attemptedAt',
      'status',
      'error',
      'durationMs',
      'nextAttemptAt',
      'response',
    ]);
    const [newest, second, oldest] = attempts;
    assert.equal(newest?.status, 200);
    assert.equal(newest?.error, null);
    assert.equal(newest?.nextAttemptAt, null);
    assert.equal(newest?.response, 'thanks');
    assert.equal(second?.status, 500);
    assert.equal(oldest?.status, 500);
    assert.equal(typeof oldest?.error, 'string');
    assert.equal(typeof oldest?.nextAttemptAt, 'string');
    assert.equal(oldest?.response, 'not yet');
    // Page by page, one a page, following X-Next: the same attempts in the same order.
    const paged: Array<Record<string, unknown>> = [];
    let next: string | undefined = `/v1/webhooks/${webhook.id}/attempts?limit=1`;
    while (next !== undefined) {
      const page = await call(server, 'GET', next);
      assert.equal(page.status, 200);
      paged.push(...(page.json as typeof attempts));
      const header = page.headers['x-next'];
      next = typeof header === 'string' ? header : undefined;
    }
    assert.deepEqual(paged, attempts);
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await receiver.close();
  }
});

test('a 410 disables the subscription with its reason, and nothing more is sent to it', async () => {
  const receiver = await startReceiver(answering(410));
  try {
    const webhook = await subscribe(receiver.url);
    await createPet(server, { name: 'Gone', categoryId: 1 });
    await eventually(() => receiver.requests.length >= 1, 'the first attempt');
    let read: WebhookJson | undefined;
    await eventually(async () => {
      read = (await call(server, 'GET', `/v1/webhooks/${webhook.id}`)).json as WebhookJson;
      return read.status === 'disabled';
    }, 'the subscription disabled');
    assert.match(read?.disabledReason ?? '', /410/);
    const sent = receiver.requests.length;
    await createPet(server, { name: 'After', categoryId: 1 });
    const test = await call(server, 'POST', `/v1/webhooks/${webhook.id}/test`);
    assert.equal(test.status, 409);
    const eventId = String(receiver.requests[0]?.headers['webhook-id']);
    const redelivery = await call(server, 'POST', `/v1/events/${eventId}/redeliver`, {
      json: { webhookId: webhook.id },
    });
    assert.equal(redelivery.status, 409);
    assert.equal(
      (redelivery.json as { message: string }).message,
      `Webhook ${webhook.id} is disabled, so no event can be redelivered to it; enable it first (PATCH "status": "enabled")`,
    );
    assert.equal(receiver.requests.length, sent);
  } finally {
    await receiver.close();
  }
});

test('a redirect is not followed and counts as a failure', async () => {
  const target = await startReceiver(answering(200));
  const redirecting = await startReceiver(answering(302, { location: `${target.url}/elsewhere` }));
  try {
    const webhook = await subscribe(redirecting.url);
    await createPet(server, { name: 'Redirected', categoryId: 1 });
    await eventually(() => redirecting.requests.length >= 2, 'a retry after the redirect');
    assert.equal(target.requests.length, 0);
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await redirecting.close();
    await target.close();
  }
});

test('after a rotation both secrets sign, and each verifies the delivery', async () => {
  const receiver = await startReceiver(answering(200));
  try {
    const webhook = await subscribe(receiver.url);
    const rotated = await call(server, 'POST', `/v1/webhooks/${webhook.id}/rotate-secret`);
    assert.equal(rotated.status, 200);
    const newSecret = (rotated.json as WebhookJson).secret as string;
    assert.notEqual(newSecret, webhook.secret);
    await createPet(server, { name: 'Rotated', categoryId: 1 });
    await eventually(() => receiver.requests.length >= 1, 'delivery');
    const request = receiver.requests[0] as ReceivedRequest;
    assert.equal(String(request.headers['webhook-signature']).split(' ').length, 2);
    assert.equal(verified(newSecret, request).type, 'pet.created');
    assert.equal(verified(webhook.secret as string, request).type, 'pet.created');
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await receiver.close();
  }
});

test('a test event goes to that subscription only, is not in /v1/events, and shows in its attempts', async () => {
  const receiver = await startReceiver(answering(200));
  try {
    const webhook = await subscribe(receiver.url, ['order.created']);
    const reply = await call(server, 'POST', `/v1/webhooks/${webhook.id}/test`);
    assert.equal(reply.status, 202);
    const event = reply.json as EventJson;
    assert.equal(event.type, 'webhook.test');
    assert.deepEqual(event.data, { webhookId: webhook.id });
    await eventually(() => receiver.requests.length >= 1, 'the test delivery');
    assert.equal(verified(webhook.secret as string, receiver.requests[0] as ReceivedRequest).id, event.id);
    const listed = (await call(server, 'GET', '/v1/events?limit=100')).json as EventJson[];
    assert.ok(!listed.some((item) => item.type === 'webhook.test'));
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await receiver.close();
  }
});

test('a redelivery sends the event again with the same webhook-id', async () => {
  const receiver = await startReceiver(answering(200));
  try {
    const webhook = await subscribe(receiver.url);
    await createPet(server, { name: 'Again', categoryId: 1 });
    await eventually(() => receiver.requests.length >= 1, 'the first delivery');
    const id = String(receiver.requests[0]?.headers['webhook-id']);
    const reply = await call(server, 'POST', `/v1/events/${id}/redeliver`, { json: { webhookId: webhook.id } });
    assert.equal(reply.status, 202);
    await eventually(() => receiver.requests.length >= 2, 'the redelivery');
    assert.equal(receiver.requests[1]?.headers['webhook-id'], id);
    // The body is optional: without one, the event goes to every subscription of the key of its type.
    const bodyless = await call(server, 'POST', `/v1/events/${id}/redeliver`);
    assert.equal(bodyless.status, 202, JSON.stringify(bodyless.json));
    await eventually(() => receiver.requests.length >= 3, 'the redelivery asked without a body');
    assert.equal(receiver.requests[2]?.headers['webhook-id'], id);
    assert.equal((await call(server, 'POST', '/v1/events/evt_nothere1/redeliver', { json: {} })).status, 404);
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await receiver.close();
  }
});

test('events recorded while disabled are not sent on enabling, and recover sends them', async () => {
  const receiver = await startReceiver(answering(200));
  try {
    const webhook = await subscribe(receiver.url);
    const since = new Date().toISOString();
    await call(server, 'PATCH', `/v1/webhooks/${webhook.id}`, { json: { status: 'disabled' } });
    const missed = await createPet(server, { name: 'Missed', categoryId: 1 });
    const enabled = await call(server, 'PATCH', `/v1/webhooks/${webhook.id}`, { json: { status: 'enabled' } });
    assert.equal((enabled.json as WebhookJson).status, 'enabled');
    assert.equal((enabled.json as WebhookJson).disabledReason, null);
    const after = await createPet(server, { name: 'After', categoryId: 1 });
    await eventually(() => receiver.requests.some((request) => request.body.includes(`"id":${after.id},`)), 'after');
    assert.ok(!receiver.requests.some((request) => request.body.includes(`"id":${missed.id},`)));
    // The receiver has it, but the service records the outcome a little later; until then the delivery
    // counts as not yet successful, and recover would (rightly) send it again too.
    await eventually(async () => {
      const attempts = (await call(server, 'GET', `/v1/webhooks/${webhook.id}/attempts`)).json as Array<{
        status: number | null;
      }>;
      return attempts.some((attempt) => attempt.status === 200);
    }, 'the outcome of the delivery recorded');
    const recovered = await call(server, 'POST', `/v1/webhooks/${webhook.id}/recover`, { json: { since } });
    assert.equal(recovered.status, 202);
    assert.equal((recovered.json as { events: number }).events, 1);
    await eventually(() => receiver.requests.some((request) => request.body.includes(`"id":${missed.id},`)), 'missed');
    await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
  } finally {
    await receiver.close();
  }
});

test('an Idempotency-Key on POST /v1/webhooks answers the same subscription and secret again, and makes one', async () => {
  const headers = { 'idempotency-key': `hook-${Date.now()}` };
  const body = { url: 'https://hooks.example.com/once', events: ['pet.created'] };
  const first = await call(server, 'POST', '/v1/webhooks', { json: body, headers });
  const again = await call(server, 'POST', '/v1/webhooks', { json: body, headers });
  assert.equal(first.status, 201);
  assert.equal(again.status, 201);
  assert.equal(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.text, first.text);
  const listed = (await call(server, 'GET', '/v1/webhooks?limit=100')).json as WebhookJson[];
  assert.equal(listed.filter((item) => item.url === body.url).length, 1);
  await call(server, 'DELETE', `/v1/webhooks/${(first.json as WebhookJson).id}`);
});

test("an Idempotency-Key is scoped to the webhook it is sent to: the same key on another webhook is that webhook's own rotation", async () => {
  const headers = { 'idempotency-key': `rotate-${Date.now()}` };
  const first = await subscribe('https://hooks.example.com/first');
  const second = await subscribe('https://hooks.example.com/second');
  const rotated = await call(server, 'POST', `/v1/webhooks/${first.id}/rotate-secret`, { headers });
  const replayed = await call(server, 'POST', `/v1/webhooks/${first.id}/rotate-secret`, { headers });
  assert.equal(replayed.headers['idempotent-replayed'], 'true');
  assert.equal(replayed.text, rotated.text);
  const other = await call(server, 'POST', `/v1/webhooks/${second.id}/rotate-secret`, { headers });
  assert.equal(other.status, 200, other.text);
  assert.equal(other.headers['idempotent-replayed'], undefined, "not a repeat of the first webhook's request");
  const otherJson = other.json as WebhookJson;
  assert.equal(otherJson.id, second.id);
  assert.notEqual(otherJson.secret, second.secret, 'the second webhook got a secret of its own');
  assert.notEqual(otherJson.secret, (rotated.json as WebhookJson).secret);
  await call(server, 'DELETE', `/v1/webhooks/${first.id}`);
  await call(server, 'DELETE', `/v1/webhooks/${second.id}`);
});

test(
  'a POST that takes no body refuses a repeated Idempotency-Key, and is not carried out',
  { skip: undiciHttp2Cannot('joins a repeated field into one') },
  async () => {
    const webhook = await subscribe('https://hooks.example.com/twice');
    const path = `/v1/webhooks/${webhook.id}/rotate-secret`;
    const twice = await call(server, 'POST', path, { headers: { 'idempotency-key': ['k', 'k'] } });
    assert.equal(twice.status, 400, twice.text);
    assert.equal((twice.json as { code: string }).code, 'invalid_header');
    // The one rotation the key was then used for is a first request, not a replay of the refused one.
    const once = await call(server, 'POST', path, { headers: { 'idempotency-key': 'k' } });
    assert.equal(once.status, 200, once.text);
    assert.equal(once.headers['idempotent-replayed'], undefined);
    assert.equal((await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`)).status, 204);
  },
);

test('a body sent to a POST that takes none must still be JSON: otherwise 400 invalid_json, and no rotation', async () => {
  const webhook = await subscribe('https://hooks.example.com/bodiless');
  const path = `/v1/webhooks/${webhook.id}/rotate-secret`;
  const json = { 'content-type': 'application/json' };
  const replay = { 'idempotency-key': `bodiless-${Date.now()}` };
  for (const body of ['{bad', '\uFEFF{}']) {
    const refused = await call(server, 'POST', path, { body, headers: { ...json, ...replay } });
    assert.equal(refused.status, 400, refused.text);
    assert.equal((refused.json as { code: string }).code, 'invalid_json');
  }
  // A JSON body is read and ignored; the key the refusals carried was not remembered.
  const rotated = await call(server, 'POST', path, { body: '{}', headers: { ...json, ...replay } });
  assert.equal(rotated.status, 200, rotated.text);
  assert.equal(rotated.headers['idempotent-replayed'], undefined);
  await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`);
});

test(
  'a body sent with a DELETE must still be JSON: otherwise 400 invalid_json, and nothing is deleted',
  { skip: undiciHttp2Cannot('sends no body with a DELETE') },
  async () => {
    const webhook = await subscribe('https://hooks.example.com/delete-body');
    const json = { 'content-type': 'application/json' };
    for (const body of ['{bad', '\uFEFF{}']) {
      const refused = await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`, { body, headers: json });
      assert.equal(refused.status, 400, refused.text);
      assert.equal((refused.json as { code: string }).code, 'invalid_json');
    }
    assert.equal((await call(server, 'GET', `/v1/webhooks/${webhook.id}`)).status, 200, 'still there');
    const deleted = await call(server, 'DELETE', `/v1/webhooks/${webhook.id}`, { body: '{}', headers: json });
    assert.equal(deleted.status, 204, deleted.text);
  },
);

test('the events listing refuses an unknown type and pages without skipping', async () => {
  const bad = await call(server, 'GET', '/v1/events?type=pet.sold');
  assert.equal(bad.status, 400);
  assert.equal((bad.json as { code: string }).code, 'invalid_query');
  let cursorUrl: string | undefined = '/v1/events?limit=2';
  const seen: string[] = [];
  while (cursorUrl !== undefined) {
    const reply = await call(server, 'GET', cursorUrl);
    seen.push(...(reply.json as EventJson[]).map((event) => event.id));
    cursorUrl = reply.headers['x-next'] as string | undefined;
  }
  const created = await createPet(server, { name: 'Later', categoryId: 1 });
  assert.equal(new Set(seen).size, seen.length);
  await eventually(async () => {
    const all = (await call(server, 'GET', '/v1/events?limit=100')).json as EventJson[];
    return all.some((event) => event.data.id === created.id && event.type === 'pet.created');
  }, 'the new event listed');
});
