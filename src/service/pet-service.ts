// The pet operations, as the domain sees them: list a page, read one, create one. Each takes its input
// as the caller has it (a body as `unknown`, an id as a number or the text it was read from, a page
// request as a plain object) and checks it here, once, against the schemas (pets/validate.ts), so the
// HTTP routes and the library's typed access get the same ApiErrors of the error table. Results are
// stored pets. Nothing here knows HTTP.
import { type Awaitable, mapAwaitable } from '../core/awaitable.js';
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { Arrival, Idempotency } from '../idempotency/idempotency.js';
import type { PetStatus } from '../pets/schemas.js';
import type { StoredPet } from '../pets/stored-pet.js';
import { validateNewPet, validatePetId, validatePetListQuery } from '../pets/validate.js';
import type { Store } from '../store/store.js';
import { type Created, createdOf } from './created.js';
import type { CursorCodec } from './cursor-codec.js';
import { type Listing, listPage } from './listing.js';

/** The status of a pet created without one. */
export const DEFAULT_PET_STATUS: PetStatus = 'available';

/** The operations on pets. */
export class PetService {
  readonly #store: Store;
  readonly #cursors: CursorCodec;
  readonly #idempotency: Idempotency;
  readonly #clock: Clock;

  constructor(store: Store, cursors: CursorCodec, idempotency: Idempotency, clock: Clock) {
    this.#store = store;
    this.#cursors = cursors;
    this.#idempotency = idempotency;
    this.#clock = clock;
  }

  /**
   * One page of pets in ascending id order, for `query` (`limit`, `status`, `cursor`; `invalid_query` or
   * `invalid_cursor` when wrong); at once when the store answers at once, as the reads below.
   */
  list(query: unknown): Awaitable<Listing<StoredPet, PetStatus>> {
    return listPage('pets', this.#cursors, validatePetListQuery(query), (request) => this.#store.pagePets(request));
  }

  /** The pet with `id`; `invalid_parameter` when `id` is not a pet id, `not_found` when there is none. */
  get(id: unknown): Awaitable<StoredPet> {
    const petId = validatePetId(id);
    return mapAwaitable(this.#store.getPet(petId), (pet) => {
      if (pet === undefined) throw new ApiError('not_found', `No animal has id ${petId}`);
      return pet;
    });
  }

  /**
   * Creates the pet `body` describes (`invalid_body` when it breaks NewPet; its status `available` unless
   * given), once per Idempotency-Key when `arrival` carries one.
   */
  async create(body: unknown, arrival?: Arrival): Promise<Created> {
    const newPet = validateNewPet(body);
    const pet = { name: newPet.name, categoryId: newPet.categoryId, status: newPet.status ?? DEFAULT_PET_STATUS };
    const outcome = await this.#idempotency.run(arrival, newPet, (remember) =>
      this.#store.createPet(pet, this.#clock.now(), remember),
    );
    return createdOf(outcome);
  }
}
