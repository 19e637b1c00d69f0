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
import type { IdempotencyRecord, IdempotencyTable } from './idempotency-table.js';
import type { Page, PageRequest } from './page.js';
import type { WebhookStore } from './webhook-store.js';

export type { IdempotencyRecord, IdempotencyTable, RememberedAnswer } from './idempotency-table.js';
export type { Page, PageRequest } from './page.js';

/** What an order change writes: the order's new status and its pet's, as the service's rules decided. */
export interface OrderMove {
  orderStatus: OrderStatus;
  petStatus: PetStatus;
}

/** The rule for placing an order, given the pet as it is now (locked): the move to make, or an ApiError. */
export type DecidePlacement = (pet: StoredPet | undefined) => OrderMove;

/** The rule for moving an order on, given it and its pet as they are now (locked): the move, or an ApiError. */
export type DecideMove = (order: StoredOrder | undefined, pet: StoredPet | undefined) => OrderMove;

/** Where the animals, their orders, the remembered answers and the keys live. */
export interface Store {
  /** The secret that signs paging cursors, shared by every instance of the store, so cursors survive restarts. */
  readonly cursorSecret: Buffer;
  readonly idempotency: IdempotencyTable;
  readonly keys: KeyTable;
  /** Subscriptions, the events every change below records, their deliveries and attempts. */
  readonly webhooks: WebhookStore;

  getPet(id: number): Awaitable<StoredPet | undefined>;
  pagePets(request: PageRequest<PetStatus>): Awaitable<Page<StoredPet>>;
  /**
   * Creates a pet with the next id (ids are never reused), with `remember` kept and its `pet.created`
   * event recorded (time `atMs`) in the same atomic change.
   */
  createPet(pet: Required<NewPet>, atMs: number, remember?: IdempotencyRecord): Promise<StoredPet>;

  getOrder(id: number): Awaitable<StoredOrder | undefined>;
  pageOrders(request: PageRequest<OrderStatus>): Awaitable<Page<StoredOrder>>;
  /**
   * Places an order for pet `petId`: locks the pet, lets `decide` rule on it, then creates the order
   * (next order id, `createdAt`) and sets the pet's status in one atomic change, with `remember` and
   * the events `order.created` and `pet.updated` (time `createdAt`).
   */
  placeOrder(
    petId: number,
    createdAt: string,
    decide: DecidePlacement,
    remember?: IdempotencyRecord,
  ): Promise<StoredOrder>;
  /**
   * Moves order `orderId` on: locks it and its pet, lets `decide` rule, then writes both in one atomic
   * change with the events `order.updated` and `pet.updated` (time `atMs`).
   */
  moveOrder(orderId: number, decide: DecideMove, atMs: number): Promise<StoredOrder>;

  /** Resolves when the store can take work now; rejects saying why not (readiness). */
  ping(): Promise<void>;
  /** Finishes what is under way, makes it durable and lets go of the store's resources. */
  close(): Promise<void>;
}
