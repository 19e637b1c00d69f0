// An order as every store keeps it: its fields and its JSON text, serialised once.
import type { Order, OrderStatus } from './schemas.js';

/** A stored order: its fields and its JSON in the Order key order: id, petId, status, createdAt. */
export interface StoredOrder extends Order {
  readonly json: string;
}

/** Builds a stored order, its JSON in the key order of an Order: id, petId, status, createdAt. */
export function storedOrder(id: number, petId: number, status: OrderStatus, createdAt: string): StoredOrder {
  const json = `{"id":${id},"petId":${petId},"status":"${status}","createdAt":${JSON.stringify(createdAt)}}`;
  return { id, petId, status, createdAt, json };
}
