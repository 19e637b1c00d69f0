// A pet as every store keeps it: its id and status (what the indexes need) and its JSON text, made once
// when the pet is written. The JSON is what every answer sends, so a read joins ready strings and never
// serialises; keeping nothing else holds the embedded store to about 220 bytes a pet at a million pets.
import type { PetStatus } from './schemas.js';

/** A stored pet: id, status, and its JSON in the Pet key order: id, name, categoryId, status. */
export interface StoredPet {
  readonly id: number;
  readonly status: PetStatus;
  readonly json: string;
}

/** Builds a stored pet, its JSON in the key order of a Pet: id, name, categoryId, status. */
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
