// The order routes (beta): list, place, read, move on (PATCH) and cancel (DELETE), each its handler beside
// its description in the OpenAPI document. Handlers hand the order service the input as HTTP read it; the
// service checks it (400) before the operation runs (404, 409).
import { ListOrdersQuery, NewOrder, Order, OrderId, Orders, OrderUpdate } from '../../orders/schemas.js';
import type { Service } from '../../service/service.js';
import { listAnswer } from '../list-answer.js';
import { readListQuery } from '../list-query.js';
import {
  type ErrorDescription,
  listingHeaders,
  locationHeader,
  type Operation,
  pathParameter,
  queryParameters,
} from '../openapi/operation.js';
import { readIdSegment } from '../request-target.js';
import { type Answer, defineRoute, type Route, type RouteInput } from '../route.js';
import { createdAnswer } from './created-answer.js';

// Examples, realistic and valid: a test lints the document (Spectral checks every example against its schema).
const ORDER_EXAMPLE = { id: 1, petId: 2, status: 'placed', createdAt: '2026-11-24T09:30:00.000Z' };

const ORDER_ID = pathParameter('orderId', OrderId, 'Identifier of the order.');
const ORDER_BODY = { schema: Order, example: ORDER_EXAMPLE };

// DELETE takes no body, but one it is sent is held to the same limit and media type.
const BODY_ERRORS: readonly ErrorDescription[] = [
  { code: 'payload_too_large', description: 'The body is larger than the limit.' },
  { code: 'unsupported_media_type', description: 'A non-empty body that is not JSON.' },
];

/** What PATCH and DELETE share: both move a placed order on, and answer alike. */
const MOVE: Pick<Operation, 'parameters' | 'success' | 'errors' | 'stability'> = {
  parameters: [ORDER_ID],
  success: { status: 200, description: 'The order in its new state.', body: ORDER_BODY },
  errors: [
    {
      code: 'invalid_parameter',
      description:
        'orderId is malformed (`invalid_parameter`), or the body is not JSON (`invalid_json`) or breaks OrderUpdate (`invalid_body`).',
    },
    { code: 'not_found', description: 'No order has this id.' },
    { code: 'conflict', description: 'Only a placed order can become delivered or cancelled.' },
    ...BODY_ERRORS,
  ],
  stability: 'beta',
};

const orderIdOf = (input: RouteInput): number | string => readIdSegment(input.params.orderId ?? '');
const ok = (json: string): Answer => ({ status: 200, body: json });

/** The order routes, each marked beta in the OpenAPI document. */
export function orderRoutes(service: Service, basePath: string): Route[] {
  const listPath = `${basePath}/store/orders`;
  return [
    defineRoute({
      method: 'GET',
      path: '/store/orders',
      operation: {
        operationId: 'listOrders',
        summary: 'List orders',
        description:
          'A page of orders in ascending id order, optionally of one state, paged like the animals (`X-Total-Count`, `Link`, `X-Next`).',
        parameters: queryParameters(ListOrdersQuery, {
          limit: 'Maximum number of orders returned (1 to 100, default 20).',
          status: 'Returns orders in this state.',
          cursor: 'Opaque cursor from the Link header of the previous page.',
        }),
        success: {
          status: 200,
          description: 'A page of orders, in ascending id order.',
          headers: listingHeaders('orders'),
          body: { schema: Orders, example: [ORDER_EXAMPLE] },
        },
        errors: [
          {
            code: 'invalid_query',
            description: 'A query parameter has a bad value or is repeated, or the cursor is not valid here.',
          },
        ],
        stability: 'beta',
      },
      handle: async (input) => listAnswer(await service.orders.list(readListQuery(input.query)), listPath),
    }),
    defineRoute({
      method: 'POST',
      path: '/store/orders',
      operation: {
        operationId: 'placeOrder',
        summary: 'Order an available animal (it becomes pending)',
        description:
          'Places an order for an available animal, which becomes `pending` in the same step: of two orders for one animal at the same moment, one is placed and the other gets `409`. Safe to retry with an `Idempotency-Key`.',
        acceptsIdempotencyKey: true,
        requestBody: { schema: NewOrder, mediaTypes: { 'application/json': { example: { petId: 2 } } } },
        success: {
          status: 201,
          description: 'The order, placed.',
          headers: locationHeader('order'),
          body: ORDER_BODY,
        },
        errors: [
          { code: 'invalid_body', description: 'The body is not JSON or breaks NewOrder.' },
          { code: 'not_found', description: 'No animal has this id.' },
          {
            code: 'conflict',
            description:
              'The animal is not available, or the Idempotency-Key was used with another body or is in flight.',
          },
          ...BODY_ERRORS,
        ],
        stability: 'beta',
      },
      handle: async (input) => createdAnswer(await service.orders.place(input.body, input.arrival), listPath),
    }),
    defineRoute({
      method: 'GET',
      path: '/store/orders/{orderId}',
      operation: {
        operationId: 'getOrder',
        summary: 'Get an order',
        description: 'One order, in its current state.',
        parameters: [ORDER_ID],
        success: { status: 200, description: 'The order.', body: ORDER_BODY },
        errors: [
          { code: 'invalid_parameter', description: 'orderId is malformed.' },
          { code: 'not_found', description: 'No order has this id.' },
        ],
        stability: 'beta',
      },
      handle: async (input) => ok((await service.orders.get(orderIdOf(input))).json),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/store/orders/{orderId}',
      operation: {
        operationId: 'updateOrder',
        summary: 'Deliver or cancel a placed order',
        description:
          'Moves a `placed` order on: `delivered` makes its animal `sold`, `cancelled` makes it `available` again. Any other move is `409`.',
        requestBody: {
          schema: OrderUpdate,
          mediaTypes: {
            'application/json': { example: { status: 'delivered' } },
            'application/merge-patch+json': { example: { status: 'cancelled' } },
          },
        },
        ...MOVE,
      },
      handle: async (input) => ok((await service.orders.move(orderIdOf(input), input.body)).json),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/store/orders/{orderId}',
      operation: {
        operationId: 'cancelOrder',
        summary: 'Cancel a placed order (the animal is available again)',
        description:
          'The same as `PATCH` with `{"status": "cancelled"}`: the order becomes `cancelled` and its animal `available`.',
        ...MOVE,
      },
      handle: async (input) => ok((await service.orders.cancel(orderIdOf(input))).json),
    }),
  ];
}
