// The seam between the service and where its data lives. The service layer holds every rule of the
// API (what may be ordered, which moves an order may make, what an Idempotency-Key means); a Store only
// keeps data and makes each change atomic and durable: the embedded store with a journal append, the
// PostgreSQL store with one transaction. Rules that must be checked on the current data are passed in
// as `decide` functions, which a store calls with the rows it has locked, so both stores apply the
// same rules the same way.
import type { Awaitable } from '../core/awaitable.js';
import type { KeyTable } from '../keys/key-table.js';
import type { OrderStatus } from '../orders/schemas.js';
import type { StoredOrder } from '../orders/stored-order.js';
import type { NewPet, PetStatus } from '../pets/schemas.js';
import type { StoredPet } from '../pets/stored-pet.js';

/** Which page to read: up to `limit` items with ids above `afterId`, ascending, optionally of one status. */
export interface PageRequest<S extends string> {
  status: S | undefined;
  afterId: number;
  limit: number;
}

/** One page of a listing. */
export interface Page<T> {
  items: T[];
  /** True when more items match after the last one of this page. */
  more: boolean;
  /** How many items match the filter in all. */
  total: number;
}

/** What an order change writes: the order's new status and its pet's, as the service's rules decided. */
export interface OrderMove {
  orderStatus: OrderStatus;
  petStatus: PetStatus;
}

/** The rule for placing an order, given the pet as it is now (locked): the move to make, or an ApiError. */
export type DecidePlacement = (pet: StoredPet | undefined) => OrderMove;

/** The rule for moving an order on, given it and its pet as they are now (locked): the move, or an ApiError. */
export type DecideMove = (order: StoredOrder | undefined, pet: StoredPet | undefined) => OrderMove;

/** An Idempotency-Key answer to keep with the change it belongs to; its body is the created item's JSON. */
export interface IdempotencyRecord {
  /** The API key and route the Idempotency-Key was sent to: keys are scoped by both. */
  scope: string;
  key: string;
  /** The fingerprint of the request body, so a repeat with another body is told apart. */
  fingerprint: string;
  /** The status the request was answered with, which a repeat is answered with again. */
  status: number;
  /** Wall-clock end of the record's life, in ms since the epoch. */
  expiresAtMs: number;
}

/** A remembered answer: what a repeat of the request gets again. */
export interface RememberedAnswer {
  fingerprint: string;
  status: number;
  body: string;
  expiresAtMs: number;
}

/**
 * The Idempotency-Key answers a store remembers, and the claims of requests now in flight: a claim is
 * visible to every instance sharing the store, so a repeat sent to another instance meanwhile is told.
 */
export interface IdempotencyTable {
  /**
   * Claims `(scope, key)` for the request `claimant` (a token unique to it) until it releases the claim
   * or `untilMs` (wall clock) passes, so that a claim of an instance that died does not last forever.
   * False when another request holds a claim that is still alive at `nowMs`.
   */
  claim(scope: string, key: string, claimant: string, nowMs: number, untilMs: number): Awaitable<boolean>;
  /** Releases a claim this claimant holds; nothing otherwise. */
  release(scope: string, key: string, claimant: string): Awaitable<void>;
  /** The remembered answer of `(scope, key)`, unless there is none or it expired before `nowMs`. */
  find(scope: string, key: string, nowMs: number): Awaitable<RememberedAnswer | undefined>;
}

/** Where the animals, their orders, the remembered answers and the keys live. */
export interface Store {
  /** The secret that signs paging cursors, shared by every instance of the store, so cursors survive restarts. */
  readonly cursorSecret: Buffer;
  readonly idempotency: IdempotencyTable;
  readonly keys: KeyTable;

  getPet(id: number): Awaitable<StoredPet | undefined>;
  pagePets(request: PageRequest<PetStatus>): Awaitable<Page<StoredPet>>;
  /** Creates a pet with the next id (ids are never reused), with `remember` kept in the same atomic change. */
  createPet(pet: Required<NewPet>, remember?: IdempotencyRecord): Promise<StoredPet>;

  getOrder(id: number): Awaitable<StoredOrder | undefined>;
  pageOrders(request: PageRequest<OrderStatus>): Awaitable<Page<StoredOrder>>;
  /**
   * Places an order for pet `petId`: locks the pet, lets `decide` rule on it, then creates the order
   * (next order id, `createdAt`) and sets the pet's status in one atomic change, with `remember`.
   */
  placeOrder(
    petId: number,
    createdAt: string,
    decide: DecidePlacement,
    remember?: IdempotencyRecord,
  ): Promise<StoredOrder>;
  /** Moves order `orderId` on: locks it and its pet, lets `decide` rule, then writes both in one atomic change. */
  moveOrder(orderId: number, decide: DecideMove): Promise<StoredOrder>;

  /** Resolves when the store can take work now; rejects saying why not (readiness). */
  ping(): Promise<void>;
  /** Finishes what is under way, makes it durable and lets go of the store's resources. */
  close(): Promise<void>;
}
