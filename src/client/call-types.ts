// What the client's calls take and give besides the API's own types: which page to fetch, the pages
// themselves, and the options of a POST. The API's types (Pet, Webhook, Event, ...) are the TypeBox
// schemas' Static types, imported as types only so that the client loads none of the server.
import type { EventType } from '../events/event.js';
import type { Order } from '../orders/schemas.js';
import type { Pet } from '../pets/schemas.js';
import type { Attempt, Event, Webhook } from '../webhooks/schemas.js';

/** Which page of a listing without filters to fetch. */
export interface PageOptions {
  /** Page size, 1 to 100 (the service's default is 20). */
  limit?: number;
  /** The `next` of the previous page. */
  cursor?: string;
}

/** Which page of animals or orders to fetch. */
export interface ListOptions<S extends string> extends PageOptions {
  /** Only items in this status. */
  status?: S;
  /** The `next` of the previous page, with the same `status`. */
  cursor?: string;
}

/** Which page of events to fetch. */
export interface EventListOptions extends PageOptions {
  /** Only events of this type. */
  type?: EventType;
  /** The `next` of the previous page, with the same `type`. */
  cursor?: string;
}

/** What to iterate over: every item of the listing (with `status`: those in it), fetched `limit` at a time. */
export type IterateOptions<S extends string> = Omit<ListOptions<S>, 'cursor'>;

/** A page of animals: the animals, the cursor of the next page (undefined on the last) and how many match in all. */
export interface PetPage {
  pets: Pet[];
  next: string | undefined;
  total: number;
}

/** A page of orders, as PetPage. */
export interface OrderPage {
  orders: Order[];
  next: string | undefined;
  total: number;
}

/** A page of the key's subscriptions, in creation order, as PetPage. */
export interface WebhookPage {
  webhooks: Webhook[];
  next: string | undefined;
  total: number;
}

/** A page of a subscription's delivery attempts, newest first, as PetPage. */
export interface AttemptPage {
  attempts: Attempt[];
  next: string | undefined;
  total: number;
}

/** A page of events, in the order they were recorded, as PetPage. */
export interface EventPage {
  events: Event[];
  next: string | undefined;
  total: number;
}

/** Options of a POST: a create, or one of the actions on a webhook or an event. */
export interface CreateOptions {
  /** Sent as `Idempotency-Key` (1 to 255 visible ASCII characters); a random UUID when not given, so retries never act twice. */
  idempotencyKey?: string;
}
