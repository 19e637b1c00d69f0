// The public library surface of animal-store.

export { type Clock, ManualClock, systemClock } from './clock.js';
export type { Settings } from './config.js';
export { ApiError, ERRORS, type ErrorCode } from './errors.js';
export type { NewOrder, Order, OrderStatus, OrderUpdate } from './orders/schemas.js';
export type { NewPet, Pet, PetStatus } from './pets/schemas.js';
export { type AnimalStore, type AnimalStoreOptions, createAnimalStore } from './server.js';
export type { OrderAccess, PageQuery, PetAccess } from './store-access.js';
