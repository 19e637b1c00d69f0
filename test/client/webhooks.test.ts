// The client's webhook and event methods against a real service that may deliver to a receiver on
// loopback (webhookAllowPrivate): typed answers, paging and iterators, errors as AnimalStoreError,
// Idempotency-Key on the POSTs, and ids checked before anything is sent.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AnimalStoreClient,
  AnimalStoreError,
  type Attempt,
  type Event,
  type Webhook,
  type WebhookWithSecret,
} from '../../src/client/index.js';
import { startServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { type ReceivedRequest, type Receiver, startReceiver } from '../webhooks/receiver.js';

let server: TestServer;
let client: AnimalStoreClient;
let receiver: Receiver;

before(async () => {
  server = await startServer({ webhookAllowPrivate: true });
  client = new AnimalStoreClient({ baseUrl: `${server.url}/v1`, apiKey: TEST_KEY });
  receiver = await startReceiver((_request, response) => response.writeHead(204).end());
});

after(async () => {
  await client.close();
  await server.close();
  await receiver.close();
});

/** Waits until `check` holds, looking again every few ms; fails after `deadlineMs` (generous: a busy machine). */
async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, what: string): Promise<T> {
  const deadlineMs = Date.now() + 10_000;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadlineMs) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The requests the receiver got at `path`. */
function receivedAt(path: string): ReceivedRequest[] {
  return receiver.requests.filter((request) => request.path === path);
}

async function rejectsWith(promise: Promise<unknown>, expected: { status: number; code: string }): Promise<void> {
  const error = await promise.then(
    () => assert.fail('expected a rejection'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof AnimalStoreError, String(error));
  assert.equal(error.status, expected.status);
  assert.equal(error.code, expected.code);
}

/** A subscription to the receiver at `path`, deleted by `body`'s end whatever happens. */
async function withWebhook(
  path: string,
  events: Webhook['events'],
  body: (webhook: WebhookWithSecret) => Promise<void>,
): Promise<void> {
  const webhook = await client.createWebhook({ url: `${receiver.url}${path}`, events });
  try {
    await body(webhook);
  } finally {
    await client.deleteWebhook(webhook.id);
  }
}

test('createWebhook answers the subscription with its secret; getWebhook reads it without', async () => {
  await withWebhook('/made', ['pet.created', 'order.updated'], async (webhook) => {
    assert.match(webhook.id, /^wh_/);
    assert.match(webhook.secret, /^whsec_/);
    assert.deepEqual(webhook.events, ['pet.created', 'order.updated']);
    assert.equal(webhook.description, null);
    assert.equal(webhook.status, 'enabled');
    const { secret: _secret, ...withoutSecret } = webhook;
    assert.deepEqual(await client.getWebhook(webhook.id), withoutSecret);
  });
});

test('createWebhook with the same Idempotency-Key twice makes one subscription and shows the same secret', async () => {
  const body = { url: `${receiver.url}/once`, events: ['order.created' as const], description: 'once' };
  const first = await client.createWebhook(body, { idempotencyKey: 'client-webhook-once' });
  try {
    assert.deepEqual(await client.createWebhook(body, { idempotencyKey: 'client-webhook-once' }), first);
    assert.equal((await client.listWebhooks()).total, 1);
  } finally {
    await client.deleteWebhook(first.id);
  }
});

test('listWebhooks gives a page, the next cursor and the total; webhooks() yields all in creation order', async () => {
  const made: WebhookWithSecret[] = [];
  try {
    for (const path of ['/a', '/b', '/c'])
      made.push(await client.createWebhook({ url: `${receiver.url}${path}`, events: ['order.created'] }));
    const first = await client.listWebhooks({ limit: 2 });
    assert.deepEqual(
      first.webhooks.map((webhook) => webhook.id),
      [made[0]?.id, made[1]?.id],
    );
    assert.equal(first.total, 3);
    assert.equal(typeof first.next, 'string');
    const second = await client.listWebhooks({ limit: 2, cursor: first.next as string });
    assert.deepEqual(
      second.webhooks.map((webhook) => webhook.id),
      [made[2]?.id],
    );
    assert.equal(second.next, undefined);
    const all: Webhook[] = [];
    for await (const webhook of client.webhooks({ limit: 1 })) all.push(webhook);
    assert.deepEqual(
      all.map((webhook) => webhook.id),
      made.map((webhook) => webhook.id),
    );
    assert.ok(all.every((webhook) => !('secret' in webhook)));
  } finally {
    for (const webhook of made) await client.deleteWebhook(webhook.id);
  }
});

test('updateWebhook changes the members given; a disabled subscription refuses testWebhook with conflict', async () => {
  await withWebhook('/changed', ['pet.created'], async (webhook) => {
    const changed = await client.updateWebhook(webhook.id, { events: ['pet.updated'], description: 'moves' });
    assert.deepEqual(changed.events, ['pet.updated']);
    assert.equal(changed.description, 'moves');
    assert.equal(changed.url, webhook.url);
    const disabled = await client.updateWebhook(webhook.id, { status: 'disabled' });
    assert.equal(disabled.status, 'disabled');
    assert.equal(typeof disabled.disabledReason, 'string');
    await rejectsWith(client.testWebhook(webhook.id), { status: 409, code: 'conflict' });
    await rejectsWith(client.updateWebhook(webhook.id, { url: 'not a url' }), { status: 400, code: 'invalid_body' });
  });
});

test('deleteWebhook resolves to nothing, and the subscription is then not_found', async () => {
  const webhook = await client.createWebhook({ url: `${receiver.url}/gone`, events: ['pet.created'] });
  assert.equal(await client.deleteWebhook(webhook.id), undefined);
  await rejectsWith(client.getWebhook(webhook.id), { status: 404, code: 'not_found' });
  await rejectsWith(client.deleteWebhook(webhook.id), { status: 404, code: 'not_found' });
});

test('rotateWebhookSecret answers the subscription with a new secret', async () => {
  await withWebhook('/rotated', ['pet.created'], async (webhook) => {
    const rotated = await client.rotateWebhookSecret(webhook.id, { idempotencyKey: 'client-rotate-once' });
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, webhook.secret);
    assert.equal(rotated.id, webhook.id);
    assert.deepEqual(await client.rotateWebhookSecret(webhook.id, { idempotencyKey: 'client-rotate-once' }), rotated);
  });
});

test('testWebhook answers the webhook.test event; the receiver gets it, and the attempts list it', async () => {
  await withWebhook('/tested', ['order.created'], async (webhook) => {
    const event: Event = await client.testWebhook(webhook.id);
    assert.match(event.id, /^evt_/);
    assert.equal(event.type, 'webhook.test');
    assert.deepEqual(event.data, { webhookId: webhook.id });
    const [delivered] = await eventually(
      () => (receivedAt('/tested').length > 0 ? receivedAt('/tested') : undefined),
      'the delivery',
    );
    assert.equal(delivered?.headers['webhook-id'], event.id);
    const page = await eventually(async () => {
      const listed = await client.listWebhookAttempts(webhook.id, { limit: 10 });
      return listed.attempts.length > 0 ? listed : undefined;
    }, 'the attempt listed');
    assert.equal(page.total, 1);
    assert.equal(page.next, undefined);
    const [attempt] = page.attempts;
    assert.equal(attempt?.eventId, event.id);
    assert.equal(attempt?.status, 204);
    const iterated: Attempt[] = [];
    for await (const each of client.webhookAttempts(webhook.id)) iterated.push(each);
    assert.deepEqual(iterated, page.attempts);
  });
});

test('listEvents and events() list the recorded events, filtered by type; getEvent reads one', async () => {
  const pet = await client.createPet({ name: 'Eventful', categoryId: 1 });
  await client.placeOrder(pet.id);
  const created: Event[] = [];
  for await (const event of client.events({ type: 'pet.created' })) created.push(event);
  assert.ok(created.every((event) => event.type === 'pet.created'));
  const mine = created.find((event) => (event.data as { id?: unknown }).id === pet.id);
  assert.ok(mine !== undefined, 'the pet.created event of the new pet');
  assert.deepEqual(mine.data, pet);
  assert.deepEqual(await client.getEvent(mine.id), mine);
  const first = await client.listEvents({ limit: 1 });
  assert.equal(first.events.length, 1);
  assert.ok(first.total >= 3);
  const second = await client.listEvents({ limit: 1, cursor: first.next as string });
  assert.notEqual(second.events[0]?.id, first.events[0]?.id);
  await rejectsWith(client.getEvent('evt_nothere'), { status: 404, code: 'not_found' });
  // @ts-expect-error: a type outside the schema's enum does not compile; the service refuses it too.
  await rejectsWith(client.listEvents({ type: 'pet.sold' }), { status: 400, code: 'invalid_query' });
});

test('redeliverEvent sends an event again to the subscription named, with the same webhook-id', async () => {
  await withWebhook('/again', ['pet.created'], async (webhook) => {
    const pet = await client.createPet({ name: 'Again', categoryId: 1 });
    const [first] = await eventually(
      () => (receivedAt('/again').length > 0 ? receivedAt('/again') : undefined),
      'the delivery',
    );
    const id = String(first?.headers['webhook-id']);
    const event = await client.redeliverEvent(id, { webhookId: webhook.id });
    assert.deepEqual(event.data, pet);
    assert.equal(event.id, id);
    const again = await eventually(() => receivedAt('/again')[1], 'the redelivery');
    assert.equal(again.headers['webhook-id'], id);
    await rejectsWith(client.redeliverEvent(id, { webhookId: 'wh_nothere' }), { status: 404, code: 'not_found' });
  });
});

test('recoverWebhook with a Date sends the events the subscription missed while it was disabled', async () => {
  // A service of its own, so that the only events since the subscription are this test's.
  const own = await startServer({ webhookAllowPrivate: true });
  const ownClient = new AnimalStoreClient({ baseUrl: `${own.url}/v1`, apiKey: TEST_KEY });
  try {
    const webhook = await ownClient.createWebhook({ url: `${receiver.url}/missed`, events: ['pet.created'] });
    const since = new Date(webhook.createdAt);
    await ownClient.updateWebhook(webhook.id, { status: 'disabled' });
    const missed = await ownClient.createPet({ name: 'Missed', categoryId: 1 });
    await ownClient.updateWebhook(webhook.id, { status: 'enabled' });
    const recovery = await ownClient.recoverWebhook(webhook.id, since);
    assert.deepEqual(recovery, { webhookId: webhook.id, since: since.toISOString(), events: 1 });
    const [delivered] = await eventually(
      () => (receivedAt('/missed').length > 0 ? receivedAt('/missed') : undefined),
      'the recovery',
    );
    assert.deepEqual((JSON.parse(delivered?.body ?? '{}') as Event).data, missed);
    await rejectsWith(ownClient.recoverWebhook(webhook.id, 'yesterday'), { status: 400, code: 'invalid_body' });
    await ownClient.deleteWebhook(webhook.id);
  } finally {
    await ownClient.close();
    await own.close();
  }
});

test('an id that is not a webhook or event id, or an invalid Date, is a TypeError, and nothing is sent', async () => {
  const before = await client.listWebhooks();
  for (const id of ['', 'wh_', 'evt_1', '../pets', 'wh']) {
    await assert.rejects(client.getWebhook(id), TypeError);
    await assert.rejects(client.deleteWebhook(id), TypeError);
    await assert.rejects(client.testWebhook(id), TypeError);
  }
  for (const id of ['', 'evt_', 'wh_1']) {
    await assert.rejects(client.getEvent(id), TypeError);
    await assert.rejects(client.redeliverEvent(id), TypeError);
  }
  await assert.rejects(client.recoverWebhook('wh_x', new Date(Number.NaN)), TypeError);
  assert.deepEqual(await client.listWebhooks(), before);
});
