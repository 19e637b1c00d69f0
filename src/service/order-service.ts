// The order operations (beta): list, read, place, move on, cancel, and the rules of an order's life.
// An order is placed only for an available animal, which becomes pending; a placed order moves on once,
// to delivered (the animal is sold) or cancelled (it is available again); nothing else moves. These are
// the only changes of an animal's status after its creation. The rules are decided here and carried out
// by the store atomically, on the pet and order it has locked. Each operation checks its input as the
// caller has it, once, against the schemas (orders/validate.ts), as the pet operations do.
import type { Awaitable } from '../core/awaitable.js';
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { Arrival, Idempotency } from '../idempotency/idempotency.js';
import type { OrderStatus } from '../orders/schemas.js';
import type { StoredOrder } from '../orders/stored-order.js';
import { validateNewOrder, validateOrderId, validateOrderListQuery, validateOrderUpdate } from '../orders/validate.js';
import type { PetStatus } from '../pets/schemas.js';
import type { StoredPet } from '../pets/stored-pet.js';
import type { OrderMove, Store } from '../store/store.js';
import { type Created, createdOf } from './created.js';
import type { CursorCodec } from './cursor-codec.js';
import { type Listing, listPage } from './listing.js';

/** What an order's move does to its pet. */
const PET_STATUS_AFTER: Record<Exclude<OrderStatus, 'placed'>, PetStatus> = {
  delivered: 'sold',
  cancelled: 'available',
};

/** The rule for placing an order: the pet exists and is available; the order is placed and the pet pending. */
export function decidePlacement(petId: number, pet: StoredPet | undefined): OrderMove {
  if (pet === undefined) throw new ApiError('not_found', `No animal has id ${petId}`);
  if (pet.status !== 'available') {
    throw new ApiError('conflict', `Animal ${petId} is ${pet.status}, not available, so it cannot be ordered`);
  }
  return { orderStatus: 'placed', petStatus: 'pending' };
}

/** The rule for moving an order on: only a placed order moves, to delivered or cancelled. */
export function decideMove(orderId: number, order: StoredOrder | undefined, to: OrderStatus): OrderMove {
  if (order === undefined) throw new ApiError('not_found', `No order has id ${orderId}`);
  if (to === 'placed' || order.status !== 'placed') {
    throw new ApiError(
      'conflict',
      `Order ${orderId} cannot become ${to}: it is ${order.status}; only a placed order can become delivered or cancelled`,
    );
  }
  return { orderStatus: to, petStatus: PET_STATUS_AFTER[to] };
}

/** The operations on orders. */
export class OrderService {
  readonly #store: Store;
  readonly #cursors: CursorCodec;
  readonly #idempotency: Idempotency;
  readonly #clock: Clock;

  constructor(store: Store, cursors: CursorCodec, idempotency: Idempotency, clock: Clock) {
    this.#store = store;
    this.#cursors = cursors;
    this.#idempotency = idempotency;
    this.#clock = clock;
  }

  /** One page of orders in ascending id order, for `query` (`limit`, `status`, `cursor`), as pets are listed. */
  list(query: unknown): Awaitable<Listing<StoredOrder, OrderStatus>> {
    return listPage('orders', this.#cursors, validateOrderListQuery(query), (request) =>
      this.#store.pageOrders(request),
    );
  }

  /** The order with `id`; `invalid_parameter` when `id` is not an order id, `not_found` when there is none. */
  async get(id: unknown): Promise<StoredOrder> {
    const orderId = validateOrderId(id);
    const order = await this.#store.getOrder(orderId);
    if (order === undefined) throw new ApiError('not_found', `No order has id ${orderId}`);
    return order;
  }

  /**
   * Places the order `body` describes (`invalid_body` when it breaks NewOrder; 404 for an unknown pet,
   * 409 for one not available), once per Idempotency-Key.
   */
  async place(body: unknown, arrival?: Arrival): Promise<Created> {
    const { petId } = validateNewOrder(body);
    const outcome = await this.#idempotency.run(arrival, { petId }, (remember) =>
      this.#store.placeOrder(
        petId,
        new Date(this.#clock.now()).toISOString(),
        (pet) => decidePlacement(petId, pet),
        remember,
      ),
    );
    return createdOf(outcome);
  }

  /**
   * Moves order `id` on as `update` says (`{status}`, an OrderUpdate): the id is checked first
   * (`invalid_parameter`), then the update (`invalid_body`); 404 unknown, 409 a move the rules forbid.
   */
  async move(id: unknown, update: unknown): Promise<StoredOrder> {
    const orderId = validateOrderId(id);
    const { status } = validateOrderUpdate(update);
    return this.#moveTo(orderId, status);
  }

  /** Cancels order `id`: the same as moving it to `cancelled`. */
  async cancel(id: unknown): Promise<StoredOrder> {
    return this.#moveTo(validateOrderId(id), 'cancelled');
  }

  #moveTo(orderId: number, to: OrderStatus): Promise<StoredOrder> {
    return this.#store.moveOrder(orderId, (order) => decideMove(orderId, order, to), this.#clock.now());
  }
}
