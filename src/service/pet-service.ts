// The pet operations, as the domain sees them: list a page, read one, create one. Inputs are typed and
// already checked against their schemas (pets/validate.ts) by whoever called; results are stored pets,
// errors are ApiErrors of the error table. Nothing here knows HTTP.
import { type Awaitable, mapAwaitable } from '../awaitable.js';
import { ApiError } from '../errors.js';
import type { Arrival, Idempotency } from '../idempotency/idempotency.js';
import type { NewPet, PetStatus } from '../pets/schemas.js';
import type { StoredPet } from '../pets/stored-pet.js';
import type { Store } from '../store/store.js';
import type { CursorCodec } from './cursor-codec.js';
import { type Created, createdOf } from './created.js';
import { type ListQuery, type Listing, listPage } from './listing.js';

/** The status of a pet created without one. */
export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** The operations on pets. */
export class PetService {
  readonly #store: Store;
  readonly #cursors: CursorCodec;
  readonly #idempotency: Idempotency;

  constructor(store: Store, cursors: CursorCodec, idempotency: Idempotency) {
    this.#store = store;
    this.#cursors = cursors;
    this.#idempotency = idempotency;
  }

  /** One page of pets in ascending id order (at once when the store answers at once, as the reads below). */
  list(query: ListQuery<PetStatus>): Awaitable<Listing<StoredPet, PetStatus>> {
    return listPage('pets', this.#cursors, query, (request) => this.#store.pagePets(request));
  }

  /** The pet with `id`; `not_found` when there is none. */
  get(id: number): Awaitable<StoredPet> {
    return mapAwaitable(this.#store.getPet(id), (pet) => {
      if (pet === undefined) throw new ApiError('not_found', `No animal has id ${id}`);
      return pet;
    });
  }

  /** Creates a pet (its status `available` unless given), once per Idempotency-Key when `arrival` carries one. */
  async create(newPet: NewPet, arrival?: Arrival): Promise<Created> {
    const pet = { name: newPet.name, categoryId: newPet.categoryId, status: newPet.status ?? DEFAULT_PET_STATUS };
    const outcome = await this.#idempotency.run(arrival, newPet, (remember) => this.#store.createPet(pet, remember));
    return createdOf(outcome);
  }
}
