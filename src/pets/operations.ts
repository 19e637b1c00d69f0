// The three pet operations of SPEC.md section 4: listPets, createPet and getPet (deprecated).
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { createListQueryParser } from '../http/list-query.js';
import type { Answer, Deprecation, Operation, OperationInput } from '../http/operation.js';
import { parseIdParameter } from '../http/request-target.js';
import { runIdempotent } from '../idempotency/run-idempotent.js';
import { type CursorCodec, listAnswer } from '../paging.js';
import type { StoreState } from '../state/store-state.js';
import { storedPet } from './pet-store.js';
import { ListPetsQuery } from './schemas.js';
import { PET_STATUS_RULE, validateNewPet } from './validate.js';

const parseListQuery = createListQueryParser(ListPetsQuery, PET_STATUS_RULE);

/** What the pet operations need. */
export interface PetOperationsContext {
  state: StoreState;
  cursors: CursorCodec;
  clock: Clock;
  /** The base path, e.g. "/v1", for `Location` and `Link`. */
  basePath: string;
  /** The deprecation of getPet (CONTRACT.md section 6). */
  getPetDeprecation: Deprecation;
}

/** The operations of the `animals` tag. */
export function petOperations(context: PetOperationsContext): Operation[] {
  const { state, cursors, basePath, clock } = context;

  const listPets = (input: OperationInput): Answer =>
    listAnswer(state.pets, cursors, 'pets', `${basePath}/pets`, parseListQuery(input.query));

  const createPet = (input: OperationInput): Promise<Answer> => {
    const newPet = validateNewPet(input.body);
    return runIdempotent(state.idempotency, input.idempotency, newPet, clock.now(), async (tagFor) => {
      const pet = storedPet(state.pets.takeId(), newPet.name, newPet.categoryId, newPet.status ?? 'available');
      const location = `${basePath}/pets/${pet.id}`;
      const idem = tagFor({ status: 201, location });
      await state.commit(idem === undefined ? { op: 'pet', pet } : { op: 'pet', pet, idem });
      return { status: 201, body: pet.json, location };
    });
  };

  const getPet = (input: OperationInput): Answer => {
    const id = parseIdParameter('petId', input.params.petId ?? '');
    const pet = state.pets.get(id);
    if (pet === undefined) throw new ApiError('not_found', `No animal has id ${id}`);
    return { status: 200, body: pet.json };
  };

  return [
    { method: 'GET', path: '/pets', operationId: 'listPets', handle: listPets },
    {
      method: 'POST',
      path: '/pets',
      operationId: 'createPet',
      bodyMediaTypes: ['application/json'],
      idempotent: true,
      handle: createPet,
    },
    {
      method: 'GET',
      path: '/pets/{petId}',
      operationId: 'getPet',
      deprecation: context.getPetDeprecation,
      handle: getPet,
    },
  ];
}
