// A compaction reads its snapshot over many turns while the state goes on changing (docs/storage.md,
// "Compaction"): what it reads must be the state at the moment it was taken, to the record.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { storedOrder } from '../../src/orders/stored-order.js';
import { storedPet, withStatus } from '../../src/pets/stored-pet.js';
import { decodeChange } from '../../src/store/embedded/records.js';
import { EmbeddedState, NO_LOG } from '../../src/store/embedded/state.js';
import type { Subscription } from '../../src/store/webhook-store.js';

const AT = Date.UTC(2027, 0, 1);

const subscription = (seq: number): Subscription => ({
  seq,
  id: `wh_${seq}`,
  ownerKeyId: 'key_1',
  url: `https://in.example/${seq}`,
  events: ['pet.created'],
  description: null,
  status: 'enabled',
  disabledReason: null,
  createdAt: '2027-01-01T00:00:00.000Z',
  secrets: [{ secret: 'whsec_bmV3', expiresAtMs: null }],
  failingSinceMs: null,
});

function attempt(state: EmbeddedState, subscriptionId: string, eventSeq: number, delivered: boolean): void {
  const seq = state.webhooks.takeAttemptSeq();
  state.apply({
    op: 'attempt',
    seq,
    subscription: subscriptionId,
    eventSeq,
    attempt: {
      id: `att_${seq}`,
      attemptedAtMs: AT + seq,
      status: delivered ? 200 : 500,
      error: null,
      durationMs: 3,
      response: null,
    },
    current: true,
    nextAttemptAtMs: delivered ? null : AT + 60_000,
    delivered,
    failingSinceMs: delivered ? null : AT,
  });
}

test('a frozen snapshot reads as the state was when it was taken, whatever changes before it is read', () => {
  const clock = new ManualClock(AT);
  const state = new EmbeddedState(NO_LOG, clock);
  for (const seq of [1, 2]) state.apply({ op: 'sub', subscription: subscription(seq) });
  for (let id = 1; id <= 50; id++)
    state.apply({ op: 'pet', atMs: AT + id, eventSeq: id, pet: storedPet(id, `pet ${id}`, 1, 'available') });
  for (let eventSeq = 1; eventSeq <= 30; eventSeq++) attempt(state, 'wh_1', eventSeq, eventSeq % 3 !== 0);
  state.apply({ op: 'order', order: storedOrder(1, 4, 'placed', '2027-01-01T00:00:00.000Z') });
  state.apply({
    op: 'idem',
    entry: { scope: 's', key: 'k', fingerprint: 'f', status: 201, expiresAtMs: AT + 60_000, body: '{}' },
  });

  const expected = state.snapshot();
  const frozen = state.frozenSnapshot();

  // Every kind of change the live state can take meanwhile: new pets and events (fanned out), pets and
  // orders moved, attempts that end or reschedule deliveries, a subscription disabled, another deleted,
  // events purged, answers expired.
  for (let id = 51; id <= 80; id++)
    state.apply({ op: 'pet', atMs: AT + id, eventSeq: id, pet: storedPet(id, `pet ${id}`, 1, 'available') });
  state.apply({ op: 'pet', pet: withStatus(storedPet(2, 'pet 2', 1, 'available'), 'sold') });
  state.apply({ op: 'order', order: storedOrder(1, 4, 'delivered', '2027-01-01T00:00:00.000Z') });
  for (let eventSeq = 31; eventSeq <= 60; eventSeq++) attempt(state, 'wh_1', eventSeq, true);
  attempt(state, 'wh_2', 5, false);
  state.apply({ op: 'sub', subscription: { ...subscription(1), status: 'disabled', disabledReason: 'gone' } });
  state.apply({ op: 'unsub', id: 'wh_2' });
  state.apply({ op: 'purge', beforeMs: AT + 20 });
  clock.advance(120_000);

  const read = [...frozen];
  assert.deepEqual(read, expected);
  assert.notDeepEqual(state.snapshot(), expected, 'the live state did change');
  // And it replays to that state.
  const copy = new EmbeddedState(NO_LOG, new ManualClock(AT));
  for (const record of read) copy.apply(decodeChange(record, 'snapshot'));
  assert.deepEqual(copy.snapshot(), expected);
});
