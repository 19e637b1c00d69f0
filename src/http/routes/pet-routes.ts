// The pet routes: listPets, createPet and getPet (deprecated), each its handler beside its description in
// the OpenAPI document. Handlers hand the service the input as HTTP read it; the service checks it.
import { mapAwaitable } from '../../core/awaitable.js';
import { ListPetsQuery, NewPet, Pet, PetId, Pets } from '../../pets/schemas.js';
import type { Service } from '../../service/service.js';
import { listAnswer } from '../list-answer.js';
import { readListQuery } from '../list-query.js';
import { listingHeaders, locationHeader, pathParameter, queryParameters } from '../openapi/operation.js';
import { readIdSegment } from '../request-target.js';
import { type Answer, defineRoute, type Deprecation, type Route } from '../route.js';
import { createdAnswer } from './created-answer.js';

// Examples, realistic and valid: a test lints the document (Spectral checks every example against its schema).
const PET_EXAMPLE = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
const PETS_EXAMPLE = [PET_EXAMPLE, { id: 2, name: 'Bella', categoryId: 1, status: 'pending' }];
const NEW_PET_EXAMPLE = { name: 'Rex', categoryId: 3 };

/** What the pet routes need besides the service. */
export interface PetRoutesOptions {
  /** The base path, e.g. "/v1", for `Location` and `Link`. */
  basePath: string;
  /** The deprecation of getPet. */
  getPetDeprecation: Deprecation;
}

/** The answer of getPet: made without a closure per request (this route is on the hot path). */
function petAnswer(pet: { json: string }): Answer {
  return { status: 200, body: pet.json };
}

/** The routes of the animals. */
export function petRoutes(service: Service, options: PetRoutesOptions): Route[] {
  const { basePath, getPetDeprecation } = options;
  const listPath = `${basePath}/pets`;
  // Made once with the table, so that a page is answered without a closure per request.
  const pageAnswer = (listing: Parameters<typeof listAnswer>[0]): Answer => listAnswer(listing, listPath);
  return [
    defineRoute({
      method: 'GET',
      path: '/pets',
      operation: {
        operationId: 'listPets',
        summary: 'List animals',
        description:
          'A page of animals in ascending id order, optionally of one status. `X-Total-Count` gives how many match; while more follow, `Link: <…>; rel="next"` and `X-Next` give the next page, whose signed cursor keeps the filter.',
        parameters: queryParameters(ListPetsQuery, {
          limit: 'Maximum number of animals returned (1 to 100, default 20).',
          status: 'Returns animals with this availability status.',
          cursor: 'Opaque cursor from the Link header of the previous page.',
        }),
        success: {
          status: 200,
          description: 'A page of animals, in ascending id order.',
          headers: listingHeaders('animals'),
          body: { schema: Pets, example: PETS_EXAMPLE },
        },
        errors: [
          {
            code: 'invalid_query',
            description:
              'A query parameter has a bad value or is repeated (`invalid_query`), or the cursor was not issued for this listing (`invalid_cursor`).',
          },
        ],
      },
      handle: (input) => mapAwaitable(service.pets.list(readListQuery(input.query)), pageAnswer),
    }),
    defineRoute({
      method: 'POST',
      path: '/pets',
      operation: {
        operationId: 'createPet',
        summary: 'Add an animal',
        description:
          'Adds an animal and assigns its id; `status` defaults to `available`. The answer is sent once the animal is stored durably. With an `Idempotency-Key`, a repeat of the same request within 24 hours gets the first answer again (`Idempotent-Replayed: true`) and creates nothing.',
        acceptsIdempotencyKey: true,
        requestBody: { schema: NewPet, mediaTypes: { 'application/json': { example: NEW_PET_EXAMPLE } } },
        success: {
          status: 201,
          description:
            'The animal, with its assigned id (or the stored answer of an earlier request with the same Idempotency-Key).',
          headers: locationHeader('animal'),
          body: { schema: Pet, example: PET_EXAMPLE },
        },
        errors: [
          {
            code: 'invalid_body',
            description: 'The body is not JSON (`invalid_json`) or breaks the NewPet schema (`invalid_body`).',
          },
          {
            code: 'conflict',
            description: 'The Idempotency-Key was used with another body, or its first request is still in flight.',
          },
          { code: 'payload_too_large', description: 'The body is larger than the limit.' },
          { code: 'unsupported_media_type', description: 'The body is not application/json.' },
        ],
      },
      handle: async (input) => createdAnswer(await service.pets.create(input.body, input.arrival), listPath),
    }),
    defineRoute({
      method: 'GET',
      path: '/pets/{petId}',
      deprecation: getPetDeprecation,
      operation: {
        operationId: 'getPet',
        summary: 'Get an animal',
        description: `Deprecated: removed on ${new Date(getPetDeprecation.sunsetMs).toUTCString()}. Use GET /pets with a status filter instead.`,
        parameters: [pathParameter('petId', PetId, 'Identifier of the animal to fetch.')],
        success: { status: 200, description: 'The animal.', body: { schema: Pet, example: PET_EXAMPLE } },
        errors: [
          { code: 'invalid_parameter', description: 'petId is not a whole number from 1 to 2^53 − 1.' },
          { code: 'not_found', description: 'No animal has this id.' },
        ],
      },
      handle: (input) => mapAwaitable(service.pets.get(readIdSegment(input.params.petId ?? '')), petAnswer),
    }),
  ];
}
