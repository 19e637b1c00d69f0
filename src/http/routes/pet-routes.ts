// The pet routes: listPets, createPet and getPet (deprecated), between HTTP and the pet service.
import { mapAwaitable } from '../../awaitable.js';
import { validateNewPet, validatePetListQuery } from '../../pets/validate.js';
import type { Service } from '../../service/service.js';
import { listAnswer } from '../list-answer.js';
import { parseListQuery } from '../list-query.js';
import { parseIdParameter } from '../request-target.js';
import type { Deprecation, Route } from '../route.js';
import { CREATED_STATUS, createdAnswer } from './created-answer.js';

/** What the pet routes need besides the service. */
export interface PetRoutesOptions {
  /** The base path, e.g. "/v1", for `Location` and `Link`. */
  basePath: string;
  /** The deprecation of getPet. */
  getPetDeprecation: Deprecation;
}

/** The routes of the `animals` tag. */
export function petRoutes(service: Service, options: PetRoutesOptions): Route[] {
  const { basePath } = options;
  const listPath = `${basePath}/pets`;
  return [
    {
      method: 'GET',
      path: '/pets',
      operationId: 'listPets',
      handle: (input) =>
        mapAwaitable(service.pets.list(parseListQuery(input.query, validatePetListQuery)), (listing) =>
          listAnswer(listing, listPath),
        ),
    },
    {
      method: 'POST',
      path: '/pets',
      operationId: 'createPet',
      bodyMediaTypes: ['application/json'],
      acceptsIdempotencyKey: true,
      rememberedStatus: CREATED_STATUS,
      handle: async (input) =>
        createdAnswer(await service.pets.create(validateNewPet(input.body), input.arrival), listPath),
    },
    {
      method: 'GET',
      path: '/pets/{petId}',
      operationId: 'getPet',
      deprecation: options.getPetDeprecation,
      handle: (input) =>
        mapAwaitable(service.pets.get(parseIdParameter('petId', input.params.petId ?? '')), (pet) => ({
          status: 200,
          body: pet.json,
        })),
    },
  ];
}
