// The embedded store: collections in this process's memory, every change made durable in the data
// directory's journal before it is applied and answered. One process owns the directory (its lock), so
// the in-memory state is the whole truth; locks per pet and per order serialise the changes that must
// see each other, as row locks do in PostgreSQL. Reads answer at once, without a turn of the event loop.
// A change's events are recorded in its own record: the positions are handed out as the record is
// queued, and the events (and their pending deliveries) applied with it (records.ts).
import type { Clock } from '../../core/clock.js';
import { eventIdLetters } from '../../events/event-id.js';
import type { JournalWatch } from '../../journal/journal-watch.js';
import type { Journal } from '../../journal/journal.js';
import type { KeyTable } from '../../keys/key-table.js';
import type { OrderStatus } from '../../orders/schemas.js';
import { type StoredOrder, storedOrder } from '../../orders/stored-order.js';
import type { NewPet, PetStatus } from '../../pets/schemas.js';
import { type StoredPet, storedPet, withStatus } from '../../pets/stored-pet.js';
import type {
  DecideMove,
  DecidePlacement,
  IdempotencyRecord,
  IdempotencyTable,
  Page,
  PageRequest,
  Store,
} from '../store.js';
import { EmbeddedWebhooks } from './embedded-webhooks.js';
import { KeyedLock } from './keyed-lock.js';
import type { EmbeddedState } from './state.js';

/** What an embedded store is made of; see openEmbeddedStore. */
export interface EmbeddedStoreParts {
  state: EmbeddedState;
  /** The journal the state's change log writes to; none in memory-only mode. */
  journal: Journal | undefined;
  keys: KeyTable;
  cursorSecret: Buffer;
  /** The wall clock that dates what the store dates itself (a redelivery, a recovery). */
  clock: Clock;
  /** How long opening took (replaying the journal), in seconds. */
  openSeconds?: number;
}

/** The Store of one process: memory plus a journal. */
export class EmbeddedStore implements Store {
  readonly cursorSecret: Buffer;
  readonly keys: KeyTable;
  readonly webhooks: EmbeddedWebhooks;
  readonly #state: EmbeddedState;
  readonly #journal: Journal | undefined;
  readonly #petLocks = new KeyedLock();
  readonly #orderLocks = new KeyedLock();
  /** The journal, for metrics (the app hands it over); none in memory-only mode. Not part of the Store seam. */
  readonly journalWatch: JournalWatch | undefined;

  constructor(parts: EmbeddedStoreParts) {
    this.#state = parts.state;
    this.#journal = parts.journal;
    this.keys = parts.keys;
    this.cursorSecret = parts.cursorSecret;
    this.webhooks = new EmbeddedWebhooks(parts.state, eventIdLetters(parts.cursorSecret), parts.clock);
    const journal = parts.journal;
    this.journalWatch =
      journal === undefined
        ? undefined
        : {
            stats: () => journal.stats,
            openSeconds: parts.openSeconds ?? 0,
            listen: (listener) => {
              journal.listener = listener;
            },
          };
  }

  get idempotency(): IdempotencyTable {
    return this.#state.idempotency;
  }

  /** The in-memory state, for tools and tests that look inside (backups, compaction checks). */
  get state(): EmbeddedState {
    return this.#state;
  }

  getPet(id: number): StoredPet | undefined {
    return this.#state.pets.get(id);
  }

  pagePets(request: PageRequest<PetStatus>): Page<StoredPet> {
    return this.#state.pets.page(request.status, request.afterId, request.limit);
  }

  async createPet(pet: Required<NewPet>, atMs: number, remember?: IdempotencyRecord): Promise<StoredPet> {
    const stored = storedPet(this.#state.pets.takeId(), pet.name, pet.categoryId, pet.status);
    await this.#state.commit({
      op: 'pet',
      atMs: eventTime(atMs),
      eventSeq: this.#state.webhooks.events.takeSeqs(1),
      pet: stored,
      ...(remember !== undefined && { idem: remember }),
    });
    return stored;
  }

  getOrder(id: number): StoredOrder | undefined {
    return this.#state.orders.get(id);
  }

  pageOrders(request: PageRequest<OrderStatus>): Page<StoredOrder> {
    return this.#state.orders.page(request.status, request.afterId, request.limit);
  }

  placeOrder(
    petId: number,
    createdAt: string,
    decide: DecidePlacement,
    remember?: IdempotencyRecord,
  ): Promise<StoredOrder> {
    return this.#petLocks.run(petId, async () => {
      const pet = this.#state.pets.get(petId);
      const move = decide(pet);
      const atMs = eventTime(Date.parse(createdAt));
      const order = storedOrder(this.#state.orders.takeId(), petId, move.orderStatus, createdAt);
      await this.#state.commit({
        op: 'order',
        atMs,
        eventSeq: this.#state.webhooks.events.takeSeqs(pet === undefined ? 1 : 2),
        order,
        ...(pet !== undefined && { pet: withStatus(pet, move.petStatus) }),
        ...(remember !== undefined && { idem: remember }),
      });
      return order;
    });
  }

  moveOrder(orderId: number, decide: DecideMove, atMs: number): Promise<StoredOrder> {
    return this.#orderLocks.run(orderId, async () => {
      const found = this.#state.orders.get(orderId);
      if (found === undefined) return rejectMissing(decide);
      // Lock order: an order, then its pet; placing an order locks a pet only, so no cycle can form.
      return this.#petLocks.run(found.petId, async () => {
        const pet = this.#state.pets.get(found.petId);
        const move = decide(found, pet);
        const moved = storedOrder(found.id, found.petId, move.orderStatus, found.createdAt);
        await this.#state.commit({
          op: 'order',
          atMs: eventTime(atMs),
          eventSeq: this.#state.webhooks.events.takeSeqs(pet === undefined ? 1 : 2),
          order: moved,
          ...(pet !== undefined && { pet: withStatus(pet, move.petStatus) }),
        });
        return moved;
      });
    });
  }

  async ping(): Promise<void> {
    if (this.#journal !== undefined && !this.#journal.writable) {
      throw new Error(
        `the journal ${this.#journal.path} does not take writes now (closed, or read-only after a failed write)`,
      );
    }
  }

  async close(): Promise<void> {
    await this.#journal?.close();
  }
}

/** An event's time as records keep it: whole ms since the epoch (a time the journal cannot hold is a bug of the caller). */
function eventTime(ms: number): number {
  const whole = Math.trunc(ms);
  if (!Number.isSafeInteger(whole) || whole < 0) throw new TypeError(`${ms} is not a time an event can have`);
  return whole;
}

/** A missing order: `decide` refuses it (not found), as the service's rules say. */
function rejectMissing(decide: DecideMove): never {
  decide(undefined, undefined);
  throw new TypeError('the rule for moving an order accepted an order that does not exist');
}
