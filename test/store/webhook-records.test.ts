// The journal records of events and webhooks: every kind survives encode and decode unchanged, the
// byte fast path reads pet records with events and event records exactly as the full parser would,
// damage is refused naming the record, and a torn record's event positions are read for holding back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storedOrder } from '../../src/orders/stored-order.js';
import { storedPet } from '../../src/pets/stored-pet.js';
import {
  type Change,
  decodeChange,
  decodeChangeAt,
  encodeChange,
  idsInTornRecord,
} from '../../src/store/embedded/records.js';
import type { Subscription } from '../../src/store/webhook-store.js';

const entry = {
  scope: 'key_1 POST /v1/webhooks',
  key: 'k1',
  fingerprint: 'f',
  status: 201,
  expiresAtMs: Date.UTC(2027, 0, 2),
  body: '{"secret":"whsec_x"}',
};
const subscription: Subscription = {
  seq: 3,
  id: 'wh_abc',
  ownerKeyId: 'key_1',
  url: 'https://in.example/hook?x=1',
  events: ['pet.created', 'order.updated'],
  description: 'a "quoted"\u0000 one',
  status: 'disabled',
  disabledReason: 'the receiver answered 410',
  createdAt: '2027-01-01T00:00:00.000Z',
  secrets: [
    { secret: 'whsec_bmV3', expiresAtMs: null },
    { secret: 'whsec_b2xk', expiresAtMs: Date.UTC(2027, 0, 3) },
  ],
  failingSinceMs: Date.UTC(2026, 11, 30),
};
const AT = Date.UTC(2027, 0, 1, 12);

test('every kind of webhook record survives encode and decode unchanged', () => {
  const changes: Change[] = [
    { op: 'pet', atMs: AT, eventSeq: 17, pet: storedPet(1, 'Rex', 2, 'available') },
    {
      op: 'pet',
      atMs: AT,
      eventSeq: 18,
      pet: storedPet(2, 'Tom', 2, 'sold'),
      idem: { scope: 's', key: 'k', fingerprint: 'f', status: 201, expiresAtMs: 1 },
    },
    {
      op: 'order',
      atMs: AT,
      eventSeq: 19,
      order: storedOrder(1, 1, 'placed', '2027-01-01T12:00:00.000Z'),
      pet: storedPet(1, 'Rex', 2, 'pending'),
    },
    { op: 'sub', subscription },
    { op: 'sub', subscription: { ...subscription, description: null, disabledReason: null }, remember: entry },
    { op: 'unsub', id: 'wh_abc' },
    { op: 'test', atMs: AT, seq: 21, subscriptionId: 'wh_abc', remember: entry },
    { op: 'redeliver', atMs: AT, eventSeq: 17, subscriptionIds: ['wh_abc', 'wh_def'] },
    { op: 'recover', atMs: AT, subscriptionId: 'wh_abc', eventSeqs: [17, 19, 20], remember: entry },
    // The records of attempts: by their facts, each field left out at its usual value and each written.
    {
      op: 'attempt',
      seq: 4,
      subscription: 3,
      eventSeq: 17,
      attempt: { id: 'att_01', attemptedAtMs: AT, status: 200, error: null, durationMs: 3, response: null },
      current: true,
      nextAttemptAtMs: null,
      delivered: true,
      failingSinceMs: null,
    },
    {
      op: 'attempt',
      seq: 5,
      subscription: 3,
      eventSeq: 17,
      attempt: {
        id: 'att_02',
        attemptedAtMs: AT,
        status: null,
        error: 'connection "refused"',
        durationMs: 0,
        response: 'a \u2028 "quoted" answer\n😀',
      },
      current: false,
      nextAttemptAtMs: AT + 5000,
      delivered: false,
      failingSinceMs: AT - 1,
      disableReason: 'the receiver answered 410',
    },
    // And as earlier releases wrote them: with their JSON.
    {
      op: 'attempt',
      seq: 4,
      subscription: 'wh_abc',
      eventSeq: 17,
      attempt: { id: 'att_1', json: '{"id":"att_1","response":"a \\"quoted\\" answer\\n"}' },
      current: true,
      nextAttemptAtMs: AT + 5000,
      delivered: false,
      failingSinceMs: AT,
    },
    {
      op: 'attempt',
      seq: 5,
      subscription: 'wh_abc',
      eventSeq: 17,
      attempt: { id: 'att_2', json: '{}' },
      current: false,
      nextAttemptAtMs: null,
      delivered: false,
      failingSinceMs: null,
      disableReason: 'the receiver answered 410',
    },
    { op: 'drop', subscriptionId: 'wh_abc', eventSeq: 17 },
    { op: 'purge', beforeMs: AT - 1 },
    { op: 'seqs', firstEvent: 10, nextEvent: 22, nextSubscription: 4, nextAttempt: 6 },
    { op: 'event', seq: 19, atMs: AT, type: 'order.created', dataJson: storedOrder(1, 1, 'placed', 'x').json },
    { op: 'event', seq: 21, atMs: AT, type: 'webhook.test', dataJson: '{"webhookId":"wh_abc"}' },
    {
      op: 'pending',
      subscriptionId: 'wh_abc',
      rows: [
        [17, 0, AT],
        [19, 3, AT + 1],
      ],
    },
    {
      op: 'delivered',
      subscriptionId: 'wh_abc',
      ranges: [
        [1, 4],
        [9, 9],
      ],
    },
    {
      op: 'kept-attempt',
      seq: 4,
      subscription: 3,
      eventSeq: 17,
      attempt: { id: 'att_01', attemptedAtMs: AT, status: 503, error: null, durationMs: 40, response: 'busy' },
      delivered: false,
      nextAttemptAtMs: AT + 1000,
    },
    {
      op: 'kept-attempt',
      seq: 4,
      subscription: 'wh_abc',
      eventSeq: 17,
      attempt: { id: 'att_1', json: '{"id":"att_1"}' },
      delivered: false,
      nextAttemptAtMs: null,
    },
  ];
  for (const change of changes) {
    const expected = JSON.parse(JSON.stringify(change)) as Change;
    assert.deepEqual(decodeChange(encodeChange(change), 'test'), expected, change.op);
  }
});

test('the byte path reads pet records with events and event records exactly as the full parser would', () => {
  for (const name of ['Rex', 'x","status":"sold"}}', '😀 \u2028 "quoted"', '"data":{"id":1}}']) {
    const pet = storedPet(12345, name, 7, 'pending');
    for (const change of [
      { op: 'pet', atMs: AT, eventSeq: 99, pet },
      { op: 'event', seq: 99, atMs: AT, type: 'pet.updated', dataJson: pet.json },
    ] as Change[]) {
      const record = encodeChange(change);
      const bytes = Buffer.from(`xx${record}yy`);
      assert.deepEqual(
        decodeChangeAt(bytes, 2, bytes.length - 2, () => 'test'),
        change,
      );
      assert.deepEqual(decodeChange(record, 'test'), change);
    }
  }
});

test('webhook records this service does not write are refused, naming where', () => {
  for (const payload of [
    '{"op":"pet","at":1,"pet":{"id":1,"name":"a","categoryId":1,"status":"sold"}}',
    '{"op":"pet","at":-1,"ev":1,"pet":{"id":1,"name":"a","categoryId":1,"status":"sold"}}',
    '{"op":"order","at":1,"ev":0,"order":{"id":1,"petId":1,"status":"placed","createdAt":"x"}}',
    '{"op":"sub","sub":{"id":"wh_1"}}',
    `{"op":"sub","sub":${JSON.stringify({ ...subscription, events: ['pet.deleted'] })}}`,
    `{"op":"sub","sub":${JSON.stringify(subscription)},"idem":{"scope":"s"}}`,
    '{"op":"unsub"}',
    '{"op":"test","at":1,"ev":1}',
    '{"op":"recover","at":1,"sub":"wh_1","events":[0]}',
    '{"op":"attempt","seq":1,"sub":"wh_1","event":1,"id":"att_1","json":"{}","current":1}',
    '{"op":"att","seq":1,"sub":"wh_1","ev":1,"id":"att_1","at":1,"ms":1,"status":200}',
    '{"op":"att","seq":1,"sub":1,"ev":1,"id":"att_1","at":1,"ms":1,"status":200,"delivered":true}',
    '{"op":"att","seq":1,"sub":1,"ev":1,"id":"att_1","at":1,"ms":-1,"status":200}',
    '{"op":"kept-att","seq":1,"sub":1,"ev":1,"id":"att_1","at":1,"ms":1}',
    '{"op":"pending","sub":"wh_1","rows":[[1,2]]}',
    '{"op":"event","seq":1,"at":1,"type":"pet.deleted","data":{}}',
    '{"op":"seqs","firstEvent":0}',
  ]) {
    assert.throws(() => decodeChange(payload, 'animals.log record 7'), /animals\.log record 7/, payload);
  }
});

test('a torn record gives up the event positions it may have handed out', () => {
  const torn = (change: Change): string => encodeChange(change).slice(0, -10);
  const pet = storedPet(9, 'Tom', 1, 'available');
  assert.deepEqual(idsInTornRecord(torn({ op: 'pet', atMs: AT, eventSeq: 40, pet })), {
    petId: 9,
    lastEventSeq: 40,
  });
  const order = storedOrder(7, 9, 'placed', '2027-01-01T00:00:00.000Z');
  assert.deepEqual(idsInTornRecord(torn({ op: 'order', atMs: AT, eventSeq: 41, order, pet })), {
    orderId: 7,
    lastEventSeq: 42,
  });
  assert.deepEqual(idsInTornRecord(torn({ op: 'test', atMs: AT, seq: 43, subscriptionId: 'wh_abc' })), {
    lastEventSeq: 43,
  });
  assert.deepEqual(idsInTornRecord('{"op":"pet","at":1764150000000,"ev":44,"pe'), { lastEventSeq: 44 });
  assert.deepEqual(idsInTornRecord('{"op":"pet","at":1764150000000,"ev":4'), {}, 'cut inside the position');
});
