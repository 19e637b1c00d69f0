// Validation of the pet operations' input: the NewPet body, the pet id and the list query. Pure: values
// in, typed values or an ApiError out. The pet service calls these on whatever it is given, so every
// entry point (the HTTP routes, the library's typed access) gets the same checks and the same errors.
import { ApiError } from '../core/errors.js';
import { createIdValidator, createListQueryValidator, createValidator, type FieldRules } from '../core/validation.js';
import { ListPetsQuery, MAX_ID, MAX_NAME_CODE_POINTS, NewPet, PET_STATUSES, PetId } from './schemas.js';

const STATUS_RULE = `one of ${PET_STATUSES.map((status) => `"${status}"`).join(', ')}`;

const NEW_PET_RULES: FieldRules = {
  name: `a string of 1 to ${MAX_NAME_CODE_POINTS} characters that is not all white space`,
  categoryId: `an integer from 1 to ${MAX_ID}`,
  status: STATUS_RULE,
};

const checkNewPet = createValidator(NewPet, 'NewPet', NEW_PET_RULES);

/** Checks a parsed JSON body against NewPet; throws `invalid_body` naming each fault. */
export function validateNewPet(body: unknown): NewPet {
  const pet = checkNewPet(body);
  // JSON Schema cannot say "well-formed Unicode": a lone surrogate ("\ud800") would be stored and
  // served back as text that strict UTF-8 decoders refuse, so it is refused here.
  if (!pet.name.isWellFormed()) {
    throw new ApiError('invalid_body', '"name" must be well-formed Unicode text (it contains a lone surrogate)', [
      { path: '/name', message: '"name" must be well-formed Unicode text (it contains a lone surrogate)' },
    ]);
  }
  return pet;
}

/** Checks a listing query of pets (limit, status, cursor); throws `invalid_query` naming each fault. */
export const validatePetListQuery = createListQueryValidator(ListPetsQuery, STATUS_RULE);

/** Checks a pet id: a whole number from 1 to 2^53 − 1; anything else is `invalid_parameter` naming `petId`. */
export const validatePetId = createIdValidator(PetId, 'petId');
