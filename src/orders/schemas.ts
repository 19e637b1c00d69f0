// Store orders (README "Store orders (beta) and safe retries", beta) as TypeBox schemas: they validate requests and describe
// the API in the OpenAPI document.
import Type from 'typebox';
import { MAX_ID } from '../pets/schemas.js';

export const ORDER_STATUSES = ['placed', 'delivered', 'cancelled'] as const;

export const OrderStatus = Type.Enum(ORDER_STATUSES, {
  description: 'State of an order: placed, then delivered or cancelled.',
});
export type OrderStatus = Type.Static<typeof OrderStatus>;

const Id = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_ID, format: 'int64', description });

export const Order = Type.Object(
  {
    id: Id('Unique identifier assigned by the service.'),
    petId: Id('The animal ordered.'),
    status: OrderStatus,
    createdAt: Type.String({ format: 'date-time', description: 'When the order was placed (RFC 3339, UTC).' }),
  },
  { additionalProperties: false, description: 'An order for an animal.' },
);
export type Order = Type.Static<typeof Order>;

export const Orders = Type.Array(Order, { description: 'A page of orders, in ascending id order.' });

export const NewOrder = Type.Object(
  { petId: Id('The animal to order; it must be available.') },
  { additionalProperties: false, description: 'An order to place.' },
);
export type NewOrder = Type.Static<typeof NewOrder>;

export const OrderUpdate = Type.Object(
  { status: OrderStatus },
  {
    additionalProperties: false,
    description: 'Moves a placed order on: to delivered (the animal is sold) or cancelled (it is available again).',
  },
);
export type OrderUpdate = Type.Static<typeof OrderUpdate>;

export const ListOrdersQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Maximum number of orders returned.' }),
  ),
  status: Type.Optional(OrderStatus),
  // Any text: one this service did not issue (empty, too long, forged) is refused as invalid_cursor when read.
  cursor: Type.Optional(Type.String({ description: 'Opaque cursor from the `Link` header of the previous page.' })),
});
export type ListOrdersQuery = Type.Static<typeof ListOrdersQuery>;

export const OrderId = Id('Identifier of the order.');
