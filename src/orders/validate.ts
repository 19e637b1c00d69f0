// Validation of the order operations' input: the NewOrder and OrderUpdate bodies, the order id and the list
// query. Pure: values in, typed values or an ApiError out; the order service calls these on what it is given.
import { createIdValidator, createListQueryValidator, createValidator } from '../core/validation.js';
import { MAX_ID } from '../pets/schemas.js';
import { ListOrdersQuery, NewOrder, ORDER_STATUSES, OrderId, OrderUpdate } from './schemas.js';

const ORDER_STATUS_RULE = `one of ${ORDER_STATUSES.map((status) => `"${status}"`).join(', ')}`;

/** Checks a NewOrder body; throws `invalid_body` naming each fault. */
export const validateNewOrder = createValidator(NewOrder, 'NewOrder', { petId: `an integer from 1 to ${MAX_ID}` });

/** Checks an OrderUpdate body; a status outside the three states is `invalid_body`. */
export const validateOrderUpdate = createValidator(OrderUpdate, 'OrderUpdate', { status: ORDER_STATUS_RULE });

/** Checks a listing query of orders (limit, status, cursor); throws `invalid_query` naming each fault. */
export const validateOrderListQuery = createListQueryValidator(ListOrdersQuery, ORDER_STATUS_RULE);

/** Checks an order id: a whole number from 1 to 2^53 − 1; anything else is `invalid_parameter` naming `orderId`. */
export const validateOrderId = createIdValidator(OrderId, 'orderId');
