// The public library surface of animal-store.
export type { AnimalStore } from './app/create-animal-store.js';
export { createAnimalStore } from './app/create-animal-store.js';
export type { AnimalStoreOptions } from './app/create-animal-store.js';
export type { OrderAccess, PageQuery, PetAccess } from './app/typed-access.js';
export { type Clock, ManualClock, systemClock } from './core/clock.js';
export type { Settings } from './config/settings.js';
export { ApiError, ERRORS, type ErrorCode } from './core/errors.js';
export type { NewOrder, Order, OrderStatus, OrderUpdate } from './orders/schemas.js';
export type { NewPet, Pet, PetStatus } from './pets/schemas.js';
export type { Event as WebhookEvent } from './webhooks/schemas.js';
export { decodeWebhookSecret, type WebhookSecret } from './webhooks/signature.js';
export {
  type HeaderGetter,
  type HeaderRecord,
  verifyWebhook,
  type VerifyWebhookOptions,
  WebhookVerificationError,
  type WebhookRequestHeaders,
  type WebhookVerificationFailure,
} from './webhooks/verify-webhook.js';
