// What the embedded store holds in memory: pets, orders and remembered Idempotency-Key answers. A change
// is written to the log first and applied only once the log accepted it; replay at start-up applies the
// same records through the same `apply`, so the collections always equal a replay of the file.
import type { Clock } from '../../core/clock.js';
import { MemoryIdempotencyTable } from './idempotency-table.js';
import { OrderCollection, PetCollection } from './indexed-collection.js';
import { type Change, encodeChange } from './records.js';

/** Where changes are made durable before they are applied; resolves once the change is safe. */
export interface ChangeLog {
  append(payload: string): Promise<void>;
}

/** A change log that keeps nothing: the in-memory mode of the library. */
export const NO_LOG: ChangeLog = { append: () => Promise.resolve() };

/** The collections of the embedded store and the one way they change. */
export class EmbeddedState {
  readonly pets = new PetCollection();
  readonly orders = new OrderCollection();
  readonly idempotency = new MemoryIdempotencyTable();
  readonly #log: ChangeLog;
  readonly #clock: Clock;

  constructor(log: ChangeLog, clock: Clock) {
    this.#log = log;
    this.#clock = clock;
  }

  /** Writes `change` to the log, then applies it; rejects (applying nothing) if the log refused it. */
  async commit(change: Change): Promise<void> {
    await this.#log.append(encodeChange(change));
    this.apply(change);
  }

  /** Applies a change to the collections; used by `commit` and by replay. */
  apply(change: Change): void {
    // The clock is read only for a remembered answer: replay applies a million plain pets at start-up.
    switch (change.op) {
      case 'pet':
        this.pets.put(change.pet);
        if (change.idem !== undefined)
          this.idempotency.remember({ ...change.idem, body: change.pet.json }, this.#clock.now());
        return;
      case 'order':
        this.orders.put(change.order);
        if (change.pet !== undefined) this.pets.put(change.pet);
        if (change.idem !== undefined)
          this.idempotency.remember({ ...change.idem, body: change.order.json }, this.#clock.now());
        return;
      case 'idem':
        this.idempotency.remember(change.entry, this.#clock.now());
        return;
    }
  }

  /** The records a compacted log holds: every pet, every order (its pet is already there), every live answer. */
  snapshot(): string[] {
    const records: string[] = [];
    for (const pet of this.pets.values()) records.push(encodeChange({ op: 'pet', pet }));
    for (const order of this.orders.values()) records.push(encodeChange({ op: 'order', order }));
    for (const entry of this.idempotency.live(this.#clock.now())) records.push(encodeChange({ op: 'idem', entry }));
    return records;
  }

  /** How many records a compacted log would hold. */
  get liveRecords(): number {
    return this.pets.count() + this.orders.count() + this.idempotency.size;
  }
}
