// The three pet operations of SPEC.md section 4: listPets, createPet and getPet (deprecated).
import { ApiError } from '../errors.js';
import { parseIdParameter, parsePositiveInteger, readQuery } from '../http/request-target.js';
import type { Answer, Deprecation, Operation, OperationInput } from '../http/operation.js';
import { pagingHeaders, type CursorCodec } from '../paging.js';
import { createValidator } from '../validation.js';
import type { PetStore, StoredPet } from './pet-store.js';
import { ListPetsQuery } from './schemas.js';
import { PET_STATUS_RULE, validateNewPet } from './validate.js';

/** Page size when `limit` is not given (SPEC.md section 8). */
export const DEFAULT_PAGE_SIZE = 20;
/** The largest page (SPEC.md section 8). */
export const MAX_PAGE_SIZE = 100;

const QUERY_NAMES = ['limit', 'status', 'cursor'] as const;

const checkListQuery = createValidator(ListPetsQuery, 'the query', {
  limit: `an integer from 1 to ${MAX_PAGE_SIZE} in plain decimal digits`,
  status: PET_STATUS_RULE,
  cursor: 'the opaque value from the Link header of the previous page',
}, 'query');

/** What the pet operations need. */
export interface PetOperationsContext {
  store: PetStore;
  cursors: CursorCodec;
  /** The base path, e.g. "/v1", for `Location` and `Link`. */
  basePath: string;
  /** The deprecation of getPet (CONTRACT.md section 6). */
  getPetDeprecation: Deprecation;
}

/** The operations of the `animals` tag. */
export function petOperations(context: PetOperationsContext): Operation[] {
  const { store, cursors, basePath } = context;

  const listPets = (input: OperationInput): Answer => {
    const raw = readQuery(input.query, QUERY_NAMES);
    const query = checkListQuery({
      // Digits become a number; anything else stays text so the schema refuses it by name.
      ...(raw.limit !== undefined && { limit: parsePositiveInteger(raw.limit, Number.MAX_SAFE_INTEGER) ?? raw.limit }),
      ...(raw.status !== undefined && { status: raw.status }),
      ...(raw.cursor !== undefined && { cursor: raw.cursor }),
    });
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const filter = query.status ?? '';
    const afterId = query.cursor === undefined ? 0 : cursors.read(query.cursor, 'pets', filter);
    const page = store.page(query.status, afterId, limit);
    let nextUrl: string | undefined;
    if (page.more) {
      const last = page.pets[page.pets.length - 1] as StoredPet;
      const status = filter === '' ? '' : `&status=${filter}`;
      nextUrl = `${basePath}/pets?limit=${limit}${status}&cursor=${cursors.issue('pets', filter, last.id)}`;
    }
    return { status: 200, body: joinJson(page.pets), headers: pagingHeaders(nextUrl, page.total) };
  };

  const createPet = async (input: OperationInput): Promise<Answer> => {
    const pet = await store.create(validateNewPet(input.body));
    return { status: 201, body: pet.json, headers: { location: `${basePath}/pets/${pet.id}` } };
  };

  const getPet = (input: OperationInput): Answer => {
    const id = parseIdParameter('petId', input.params.petId ?? '');
    const pet = store.get(id);
    if (pet === undefined) throw new ApiError('not_found', `No animal has id ${id}`);
    return { status: 200, body: pet.json };
  };

  return [
    { method: 'GET', path: '/pets', operationId: 'listPets', handle: listPets },
    { method: 'POST', path: '/pets', operationId: 'createPet', bodyMediaTypes: ['application/json'], handle: createPet },
    { method: 'GET', path: '/pets/{petId}', operationId: 'getPet', deprecation: context.getPetDeprecation, handle: getPet },
  ];
}

/** A JSON array of ready pet texts: no serialisation on the read path. */
export function joinJson(items: readonly { json: string }[]): string {
  if (items.length === 0) return '[]';
  let body = '[';
  for (let index = 0; index < items.length; index++) {
    if (index > 0) body += ',';
    body += (items[index] as { json: string }).json;
  }
  return body + ']';
}
