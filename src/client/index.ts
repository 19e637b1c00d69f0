// The public surface of `animal-store/client`: the client, its error, its retry policy and the API's types.
// It loads undici and, of the service, only its clock: the API's types are erased at build time.

export type { Clock } from '../core/clock.js';
export type { EventType } from '../events/event.js';
export type { NewOrder, Order, OrderStatus, OrderUpdate } from '../orders/schemas.js';
export type { NewPet, Pet, PetStatus } from '../pets/schemas.js';
export type {
  Attempt,
  Event,
  NewWebhook,
  RecoveryAnswer,
  Webhook,
  WebhookStatus,
  WebhookUpdate,
  WebhookWithSecret,
} from '../webhooks/schemas.js';
export type {
  AttemptPage,
  CreateOptions,
  EventListOptions,
  EventPage,
  IterateOptions,
  ListOptions,
  OrderPage,
  PageOptions,
  PetPage,
  WebhookPage,
} from './call-types.js';
export { AnimalStoreClient, type AnimalStoreClientOptions } from './client.js';
export { AnimalStoreError, type AnimalStoreErrorInit, CLIENT_ERROR_CODES, type ErrorDetail } from './errors.js';
export {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  nextRetryDelayMs,
  parseRetryAfterMs,
  type RetryPolicy,
  type RetryState,
} from './retry.js';
