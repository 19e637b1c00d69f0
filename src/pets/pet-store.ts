// The animals: a map by id plus an ascending id index for the whole set and one per status, so a page
// is a binary search from the cursor and a slice (O(log n + limit), whatever the page number).
// Each pet's JSON is serialised once when it is written; a list answer joins ready strings.
// Changes go through a `ChangeLog` first and become visible only once it has accepted them, so an
// append-only log on disk can sit underneath without the handlers knowing (storage/ provides one).
import { firstAfter, insertId, removeId } from './sorted-ids.js';
import type { NewPet, Pet, PetStatus } from './schemas.js';

/** A stored pet: its fields and its JSON text, serialised once. */
export interface StoredPet extends Pet {
  readonly json: string;
}

/** Where changes are made durable before they are applied; resolves once the change is safe. */
export interface ChangeLog {
  append(payload: string): Promise<void>;
}

/** A change log that keeps nothing: the in-memory mode of the library. */
export const NO_LOG: ChangeLog = { append: () => Promise.resolve() };

/** One page of a listing. */
export interface PetPage {
  pets: StoredPet[];
  /** True when more pets match after the last one of this page. */
  more: boolean;
  /** How many pets match the filter in all. */
  total: number;
}

/** The log record of a created pet: `{"op":"pet","pet":{...}}`, with the pet's own JSON inside. */
export function petRecord(pet: StoredPet): string {
  return `{"op":"pet","pet":${pet.json}}`;
}

/** Builds a stored pet, its JSON in the key order of CONTRACT.md section 3: id, name, categoryId, status. */
export function storedPet(id: number, name: string, categoryId: number, status: PetStatus): StoredPet {
  const json = `{"id":${id},"name":${JSON.stringify(name)},"categoryId":${categoryId},"status":"${status}"}`;
  return { id, name, categoryId, status, json };
}

/** The indexed set of pets. */
export class PetStore {
  readonly #byId = new Map<number, StoredPet>();
  readonly #all: number[] = [];
  readonly #byStatus: Record<PetStatus, number[]> = { available: [], pending: [], sold: [] };
  readonly #log: ChangeLog;
  #nextId = 1;

  constructor(log: ChangeLog = NO_LOG) {
    this.#log = log;
  }

  /** The pet with this id, if any. */
  get(id: number): StoredPet | undefined {
    return this.#byId.get(id);
  }

  /** Up to `limit` pets with ids above `afterId`, in ascending id order, optionally of one status. */
  page(status: PetStatus | undefined, afterId: number, limit: number): PetPage {
    const ids = status === undefined ? this.#all : this.#byStatus[status];
    const start = firstAfter(ids, afterId);
    const end = Math.min(start + limit, ids.length);
    const pets = new Array<StoredPet>(end - start);
    for (let index = start; index < end; index++) pets[index - start] = this.#byId.get(ids[index] as number) as StoredPet;
    return { pets, more: end < ids.length, total: ids.length };
  }

  /** How many pets there are, in all or of one status. */
  count(status?: PetStatus): number {
    return status === undefined ? this.#all.length : this.#byStatus[status].length;
  }

  /** The id the next created pet gets. */
  get nextId(): number {
    return this.#nextId;
  }

  /**
   * Creates a pet: takes the next id (never reused, even when the write fails), writes it to the log,
   * and makes it visible once the log has accepted it. Rejects with the log's error otherwise.
   */
  async create(newPet: NewPet): Promise<StoredPet> {
    const pet = storedPet(this.#nextId++, newPet.name, newPet.categoryId, newPet.status ?? 'available');
    await this.#log.append(petRecord(pet));
    this.put(pet);
    return pet;
  }

  /** Puts a pet into the map and the indexes (replacing an older version of it); used by replay too. */
  put(pet: StoredPet): void {
    const previous = this.#byId.get(pet.id);
    this.#byId.set(pet.id, pet);
    if (previous === undefined) {
      insertId(this.#all, pet.id);
    } else if (previous.status !== pet.status) {
      removeId(this.#byStatus[previous.status], pet.id);
    } else {
      return;
    }
    insertId(this.#byStatus[pet.status], pet.id);
    this.noteId(pet.id);
  }

  /** Makes sure ids continue after `id` (also for records that were torn or never made visible). */
  noteId(id: number): void {
    if (id >= this.#nextId) this.#nextId = id + 1;
  }

  /** Every pet, in id order, as log records: the snapshot a compaction writes. */
  *records(): Generator<string> {
    for (const id of this.#all) yield petRecord(this.#byId.get(id) as StoredPet);
  }
}
