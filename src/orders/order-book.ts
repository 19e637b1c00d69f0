// The orders: an indexed collection like the pets', each order's JSON serialised once.
import { IndexedCollection } from '../state/indexed-collection.js';
import { ORDER_STATUSES, type Order, type OrderStatus } from './schemas.js';

/** A stored order: its fields and its JSON text. */
export interface StoredOrder extends Order {
  readonly json: string;
}

/** Builds a stored order, its JSON in the key order of CONTRACT.md section 8: id, petId, status, createdAt. */
export function storedOrder(id: number, petId: number, status: OrderStatus, createdAt: string): StoredOrder {
  const json = `{"id":${id},"petId":${petId},"status":"${status}","createdAt":${JSON.stringify(createdAt)}}`;
  return { id, petId, status, createdAt, json };
}

/** Every order, by id and by status. */
export class OrderBook extends IndexedCollection<StoredOrder, OrderStatus> {
  constructor() {
    super(ORDER_STATUSES);
  }
}
