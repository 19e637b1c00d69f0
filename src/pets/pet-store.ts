// The animals: an indexed collection of pets, each with its JSON serialised once, when it is written.
import { IndexedCollection } from '../state/indexed-collection.js';
import { PET_STATUSES, type Pet, type PetStatus } from './schemas.js';

/** A stored pet: its fields and its JSON text. */
export interface StoredPet extends Pet {
  readonly json: string;
}

/** Builds a stored pet, its JSON in the key order of CONTRACT.md section 3: id, name, categoryId, status. */
export function storedPet(id: number, name: string, categoryId: number, status: PetStatus): StoredPet {
  const json = `{"id":${id},"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":"${status}"}`;
  return { id, name, categoryId, status, json };
}

/** The same pet in another status (orders move pets between states). */
export function withStatus(pet: StoredPet, status: PetStatus): StoredPet {
  return storedPet(pet.id, pet.name, pet.categoryId, status);
}

/** Every pet, by id and by status. */
export class PetStore extends IndexedCollection<StoredPet, PetStatus> {
  constructor() {
    super(PET_STATUSES);
  }
}
