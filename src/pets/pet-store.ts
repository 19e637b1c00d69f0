// The animals: an indexed collection of pets. A pet is kept as its id, its status and its JSON text,
// serialised once when it is written (or taken from the log record as it is): the JSON is what every
// answer sends, and keeping nothing else holds resident memory to about 220 bytes a pet at a million
// pets (`npm run bench:compare`, startup scenario; the target is at most 300).
import { IndexedCollection } from '../state/indexed-collection.js';
import { PET_STATUSES, type PetStatus } from './schemas.js';

/** A stored pet: its id and status (for the indexes) and its JSON text, in the key order of CONTRACT.md section 3. */
export interface StoredPet {
  readonly id: number;
  readonly status: PetStatus;
  readonly json: string;
}

/** Builds a stored pet, its JSON in the key order of CONTRACT.md section 3: id, name, categoryId, status. */
export function storedPet(id: number, name: string, categoryId: number, status: PetStatus): StoredPet {
  return {
    id,
    status,
    json: `{"id":${id},"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":"${status}"}`,
  };
}

/** The same pet in another status (orders move pets between states): only the final member changes. */
export function withStatus(pet: StoredPet, status: PetStatus): StoredPet {
  const suffix = `"status":"${pet.status}"}`;
  return { id: pet.id, status, json: `${pet.json.slice(0, pet.json.length - suffix.length)}"status":"${status}"}` };
}

/** Every pet, by id and by status. */
export class PetStore extends IndexedCollection<StoredPet, PetStatus> {
  constructor() {
    super(PET_STATUSES);
  }
}
