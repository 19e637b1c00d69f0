// The public library surface of animal-store.
export { createAnimalStore, type AnimalStore, type AnimalStoreOptions } from './server.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { ERRORS, ApiError, type ErrorCode } from './errors.js';
export type { NewPet, Pet, PetStatus } from './pets/schemas.js';
export type { NewOrder, Order, OrderStatus, OrderUpdate } from './orders/schemas.js';
export type { Settings } from './config.js';
export type { OrderAccess, PageQuery, PetAccess } from './store-access.js';
