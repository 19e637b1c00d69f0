// Replay of log records into the store: a pure function of each record's text.
import type { PetStore } from './pet-store.js';
import { storedPet } from './pet-store.js';
import { isPetStatus } from './validate.js';

/** Applies one log record to `store`; throws, naming `where`, when the record is not one this service writes. */
export function applyRecord(store: PetStore, payload: string, where: string): void {
  let record: unknown;
  try {
    record = JSON.parse(payload);
  } catch {
    throw new Error(`${where} is not JSON`);
  }
  const { op, pet } = (record ?? {}) as { op?: unknown; pet?: Record<string, unknown> };
  if (op === 'pet' && typeof pet === 'object' && pet !== null) {
    const { id, name, categoryId, status } = pet;
    if (Number.isSafeInteger(id) && (id as number) > 0 && typeof name === 'string'
      && Number.isSafeInteger(categoryId) && typeof status === 'string' && isPetStatus(status)) {
      store.put(storedPet(id as number, name, categoryId as number, status));
      return;
    }
  }
  throw new Error(`${where} is not a record this service writes (op ${JSON.stringify(op)})`);
}
