// What a compacted log holds: the counters, every pet, every order, the retained events, the live
// Idempotency-Key answers, then the subscriptions with their pending deliveries, delivered events and
// attempts. Subscriptions come after the events, so replaying the events fans them out to nobody:
// the pending deliveries are written as they are. A pet whose `pet.created` event is retained and
// that has not changed since is written as the one record that created it, which replays to both:
// a compacted log of a million new pets stays a million records and replay's fast path reads them.
//
// A compaction reads a frozen copy (`frozenSource`): taken in one turn of the event loop at one position
// of the journal, while the records are made from it over many turns as the new log is written
// (docs/storage.md, "Compaction"), and the live state goes on changing meanwhile.
import type { StoredOrder } from '../../orders/stored-order.js';
import type { StoredPet } from '../../pets/stored-pet.js';
import type { IdempotencyEntry, MemoryIdempotencyTable } from './idempotency-table.js';
import type { IndexedCollection } from './indexed-collection.js';
import type { Change } from './records.js';
import type { WebhookSnapshotSource, WebhookState } from './webhook-state.js';

/** What a snapshot reads. */
export interface SnapshotSource {
  readonly pets: { values(): Iterable<StoredPet> };
  readonly orders: { values(): Iterable<StoredOrder> };
  readonly idempotency: { live(nowMs: number): Iterable<IdempotencyEntry> };
  readonly webhooks: WebhookSnapshotSource;
}

/** The live collections a frozen source is copied from. */
export interface LiveSource {
  readonly pets: IndexedCollection<StoredPet, StoredPet['status']>;
  readonly orders: IndexedCollection<StoredOrder, StoredOrder['status']>;
  readonly idempotency: MemoryIdempotencyTable;
  readonly webhooks: WebhookState;
}

/**
 * A copy of `state` as it is now that later changes do not reach. Only arrays of immutable items and
 * typed columns are copied (a few milliseconds at a million pets, against a second or more to make
 * their records); the idempotency answers alive at `nowMs` are listed now.
 */
export function frozenSource(state: LiveSource, nowMs: number): SnapshotSource {
  const pets = state.pets.frozenValues();
  const orders = state.orders.frozenValues();
  const live = [...state.idempotency.live(nowMs)];
  return {
    pets: { values: () => pets },
    orders: { values: () => orders },
    idempotency: { live: () => live },
    webhooks: state.webhooks.frozen(),
  };
}

const ID_PREFIX = '{"id":';

/** The id a pet's JSON starts with. */
function petIdOf(json: string): number {
  return Number.parseInt(json.slice(ID_PREFIX.length, json.indexOf(',', ID_PREFIX.length)), 10);
}

/** The changes whose replay gives `state` as it is at `nowMs` (expired answers left out). */
export function* snapshotChanges(state: SnapshotSource, nowMs: number): Generator<Change> {
  const { events } = state.webhooks;
  const seqs = state.webhooks.seqs();
  if (seqs !== undefined) yield seqs;
  const firstSeq = events.firstSeq;
  /** The events written with their pet (1), by position from the first retained. */
  const withPet = new Uint8Array(Math.max(0, events.nextSeq - firstSeq));
  // Pets and their pet.created events were both numbered as they were created, so one pass over each
  // pairs them; a pet that changed since, or an event out of step, is written on its own.
  const created = events.seqsOf('pet.created', Number.NEGATIVE_INFINITY);
  let next = created.next();
  for (const pet of state.pets.values()) {
    let combined: Change | undefined;
    while (next.done !== true) {
      const event = events.get(next.value);
      const petId = event === undefined ? 0 : petIdOf(event.dataJson);
      if (petId > pet.id) break;
      next = created.next();
      if (event !== undefined && petId === pet.id && event.dataJson === pet.json) {
        combined = { op: 'pet', pet, atMs: event.atMs, eventSeq: event.seq };
        withPet[event.seq - firstSeq] = 1;
        break;
      }
    }
    yield combined ?? { op: 'pet', pet };
  }
  for (const order of state.orders.values()) yield { op: 'order', order };
  for (const event of events.values()) {
    if (withPet[event.seq - firstSeq] === 1) continue;
    yield { op: 'event', seq: event.seq, atMs: event.atMs, type: event.type, dataJson: event.dataJson };
  }
  for (const entry of state.idempotency.live(nowMs)) yield { op: 'idem', entry };
  yield* state.webhooks.snapshot();
}
