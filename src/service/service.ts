// The service layer: the API's operations over a store, independent of HTTP. The HTTP routes and the
// library's typed access both call it, so both apply the same rules.
import type { Clock } from '../core/clock.js';
import { Idempotency } from '../idempotency/idempotency.js';
import type { Store } from '../store/store.js';
import { EventService } from '../webhooks/event-service.js';
import { DEFAULT_WEBHOOK_SETTINGS, type WebhookSettings } from '../webhooks/settings.js';
import { WebhookService } from '../webhooks/webhook-service.js';
import { CursorCodec } from './cursor-codec.js';
import { OrderService } from './order-service.js';
import { PetService } from './pet-service.js';

/** The operations of the API, by resource. */
export interface Service {
  readonly pets: PetService;
  readonly orders: OrderService;
  /** Subscriptions of API keys to events. */
  readonly webhooks: WebhookService;
  /** The events every change records. */
  readonly events: EventService;
  /** Idempotency-Keys: a request with one arrives here before its body is read. */
  readonly idempotency: Idempotency;
}

/** The service over `store`, its cursors signed with the store's secret. */
export function createService(
  store: Store,
  clock: Clock,
  webhookSettings: WebhookSettings = DEFAULT_WEBHOOK_SETTINGS,
): Service {
  const cursors = new CursorCodec(store.cursorSecret);
  const idempotency = new Idempotency(store.idempotency, clock);
  return {
    pets: new PetService(store, cursors, idempotency, clock),
    orders: new OrderService(store, cursors, idempotency, clock),
    webhooks: new WebhookService(store.webhooks, cursors, idempotency, clock, webhookSettings),
    events: new EventService(store.webhooks, cursors, idempotency, clock, webhookSettings),
    idempotency,
  };
}
