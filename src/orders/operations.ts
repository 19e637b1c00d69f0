// Store orders (CONTRACT.md section 8, beta): list, place, read, move on (PATCH) and cancel (DELETE).
// An order and its pet's new status are one record; concurrent changes to one pet or order are
// serialised by a reservation taken before the write, so two orders for one pet give one 201, one 409.
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { createListQueryParser } from '../http/list-query.js';
import type { Answer, Operation, OperationInput } from '../http/operation.js';
import { parseIdParameter } from '../http/request-target.js';
import { runIdempotent } from '../idempotency/run-idempotent.js';
import { type CursorCodec, listAnswer } from '../paging.js';
import { withStatus } from '../pets/pet-store.js';
import type { PetStatus } from '../pets/schemas.js';
import type { StoreState } from '../state/store-state.js';
import { createValidator } from '../validation.js';
import { type StoredOrder, storedOrder } from './order-book.js';
import { ListOrdersQuery, NewOrder, ORDER_STATUSES, type OrderStatus, OrderUpdate } from './schemas.js';

const ORDER_STATUS_RULE = `one of ${ORDER_STATUSES.map((status) => `"${status}"`).join(', ')}`;
const parseListQuery = createListQueryParser(ListOrdersQuery, ORDER_STATUS_RULE);
const checkNewOrder = createValidator(NewOrder, 'NewOrder', {
  petId: `an integer from 1 to ${Number.MAX_SAFE_INTEGER}`,
});
const checkUpdate = createValidator(OrderUpdate, 'OrderUpdate', { status: ORDER_STATUS_RULE });

/** What an order's move does to its pet (CONTRACT.md section 8). */
const PET_STATUS_AFTER: Record<Exclude<OrderStatus, 'placed'>, PetStatus> = {
  delivered: 'sold',
  cancelled: 'available',
};

/** What the order operations need. */
export interface OrderOperationsContext {
  state: StoreState;
  cursors: CursorCodec;
  clock: Clock;
  basePath: string;
}

/** The order operations, each marked beta in the OpenAPI document. */
export function orderOperations(context: OrderOperationsContext): Operation[] {
  const { state, cursors, clock, basePath } = context;
  // Pets and orders with a change on its way to the log: a second change waits its turn as a 409.
  const busyPets = new Set<number>();
  const busyOrders = new Set<number>();

  const orderIdOf = (input: OperationInput): number => parseIdParameter('orderId', input.params.orderId ?? '');
  const findOrder = (id: number): StoredOrder => {
    const order = state.orders.get(id);
    if (order === undefined) throw new ApiError('not_found', `No order has id ${id}`);
    return order;
  };

  const listOrders = (input: OperationInput): Answer =>
    listAnswer(state.orders, cursors, 'orders', `${basePath}/store/orders`, parseListQuery(input.query));

  const placeOrder = (input: OperationInput): Promise<Answer> => {
    const { petId } = checkNewOrder(input.body);
    return runIdempotent(state.idempotency, input.idempotency, { petId }, clock.now(), async (tagFor) => {
      const pet = state.pets.get(petId);
      if (pet === undefined) throw new ApiError('not_found', `No animal has id ${petId}`);
      if (pet.status !== 'available' || busyPets.has(petId)) {
        throw new ApiError(
          'conflict',
          `Animal ${petId} is ${busyPets.has(petId) ? 'being ordered' : pet.status}, not available, so it cannot be ordered`,
        );
      }
      const order = storedOrder(state.orders.takeId(), petId, 'placed', new Date(clock.now()).toISOString());
      const location = `${basePath}/store/orders/${order.id}`;
      const idem = tagFor({ status: 201, location });
      busyPets.add(petId);
      try {
        await state.commit({
          op: 'order',
          order,
          pet: withStatus(pet, 'pending'),
          ...(idem !== undefined && { idem }),
        });
      } finally {
        busyPets.delete(petId);
      }
      return { status: 201, body: order.json, location };
    });
  };

  const moveOrder = async (order: StoredOrder, to: OrderStatus): Promise<Answer> => {
    if (to === 'placed' || order.status !== 'placed' || busyOrders.has(order.id)) {
      const why = busyOrders.has(order.id)
        ? 'another change to it is in progress'
        : `it is ${order.status}; only a placed order can become delivered or cancelled`;
      throw new ApiError('conflict', `Order ${order.id} cannot become ${to}: ${why}`);
    }
    const pet = state.pets.get(order.petId);
    const moved = storedOrder(order.id, order.petId, to, order.createdAt);
    busyOrders.add(order.id);
    try {
      await state.commit({
        op: 'order',
        order: moved,
        ...(pet !== undefined && { pet: withStatus(pet, PET_STATUS_AFTER[to]) }),
      });
    } finally {
      busyOrders.delete(order.id);
    }
    return { status: 200, body: moved.json };
  };

  return [
    { method: 'GET', path: '/store/orders', operationId: 'listOrders', handle: listOrders },
    {
      method: 'POST',
      path: '/store/orders',
      operationId: 'placeOrder',
      bodyMediaTypes: ['application/json'],
      idempotent: true,
      handle: placeOrder,
    },
    {
      method: 'GET',
      path: '/store/orders/{orderId}',
      operationId: 'getOrder',
      handle: (input) => ({ status: 200, body: findOrder(orderIdOf(input)).json }),
    },
    {
      method: 'PATCH',
      path: '/store/orders/{orderId}',
      operationId: 'updateOrder',
      bodyMediaTypes: ['application/json', 'application/merge-patch+json'],
      handle: (input) => {
        // Input first (400), then the operation (404, 409): CONTRACT.md section 1.
        const id = orderIdOf(input);
        const { status } = checkUpdate(input.body);
        return moveOrder(findOrder(id), status);
      },
    },
    {
      method: 'DELETE',
      path: '/store/orders/{orderId}',
      operationId: 'cancelOrder',
      handle: (input) => moveOrder(findOrder(orderIdOf(input)), 'cancelled'),
    },
  ];
}
