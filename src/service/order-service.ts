// The order operations (beta): list, read, place, move on, cancel, and the rules of an order's life.
// An order is placed only for an available animal, which becomes pending; a placed order moves on once,
// to delivered (the animal is sold) or cancelled (it is available again); nothing else moves. These are
// the only changes of an animal's status after its creation. The rules are decided here and carried out
// by the store atomically, on the pet and order it has locked.
import type { Awaitable } from '../awaitable.js';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import type { Arrival, Idempotency } from '../idempotency/idempotency.js';
import type { OrderStatus } from '../orders/schemas.js';
import type { StoredOrder } from '../orders/stored-order.js';
import type { PetStatus } from '../pets/schemas.js';
import type { StoredPet } from '../pets/stored-pet.js';
import type { OrderMove, Store } from '../store/store.js';
import type { CursorCodec } from './cursor-codec.js';
import { type Created, createdOf } from './created.js';
import { type ListQuery, type Listing, listPage } from './listing.js';

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

  /** One page of orders in ascending id order. */
  list(query: ListQuery<OrderStatus>): Awaitable<Listing<StoredOrder, OrderStatus>> {
    return listPage('orders', this.#cursors, query, (request) => this.#store.pageOrders(request));
  }

  /** The order with `id`; `not_found` when there is none. */
  async get(id: number): Promise<StoredOrder> {
    const order = await this.#store.getOrder(id);
    if (order === undefined) throw new ApiError('not_found', `No order has id ${id}`);
    return order;
  }

  /** Places an order for pet `petId` (404 unknown, 409 not available), once per Idempotency-Key. */
  async place(petId: number, arrival?: Arrival): Promise<Created> {
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

  /** Moves order `id` to `to` (404 unknown, 409 a move the rules forbid). */
  move(id: number, to: OrderStatus): Promise<StoredOrder> {
    return this.#store.moveOrder(id, (order) => decideMove(id, order, to));
  }
}
