// The order routes (beta): list, place, read, move on (PATCH) and cancel (DELETE), between HTTP and the
// order service. Input is checked first (400), then the operation runs (404, 409).
import { validateNewOrder, validateOrderListQuery, validateOrderUpdate } from '../../orders/validate.js';
import type { Service } from '../../service/service.js';
import { listAnswer } from '../list-answer.js';
import { parseListQuery } from '../list-query.js';
import { parseIdParameter } from '../request-target.js';
import type { Answer, Route, RouteInput } from '../route.js';
import { CREATED_STATUS, createdAnswer } from './created-answer.js';

/** The order routes, each marked beta in the OpenAPI document. */
export function orderRoutes(service: Service, basePath: string): Route[] {
  const listPath = `${basePath}/store/orders`;
  const orderIdOf = (input: RouteInput): number => parseIdParameter('orderId', input.params.orderId ?? '');
  const ok = (json: string): Answer => ({ status: 200, body: json });
  return [
    {
      method: 'GET',
      path: '/store/orders',
      operationId: 'listOrders',
      handle: async (input) =>
        listAnswer(await service.orders.list(parseListQuery(input.query, validateOrderListQuery)), listPath),
    },
    {
      method: 'POST',
      path: '/store/orders',
      operationId: 'placeOrder',
      bodyMediaTypes: ['application/json'],
      acceptsIdempotencyKey: true,
      rememberedStatus: CREATED_STATUS,
      handle: async (input) =>
        createdAnswer(await service.orders.place(validateNewOrder(input.body).petId, input.arrival), listPath),
    },
    {
      method: 'GET',
      path: '/store/orders/{orderId}',
      operationId: 'getOrder',
      handle: async (input) => ok((await service.orders.get(orderIdOf(input))).json),
    },
    {
      method: 'PATCH',
      path: '/store/orders/{orderId}',
      operationId: 'updateOrder',
      bodyMediaTypes: ['application/json', 'application/merge-patch+json'],
      handle: async (input) => {
        const id = orderIdOf(input);
        const { status } = validateOrderUpdate(input.body);
        return ok((await service.orders.move(id, status)).json);
      },
    },
    {
      method: 'DELETE',
      path: '/store/orders/{orderId}',
      operationId: 'cancelOrder',
      handle: async (input) => ok((await service.orders.move(orderIdOf(input), 'cancelled')).json),
    },
  ];
}
