// Validation of the pet operations' input: the NewPet body and the list query.
// Pure: values in, typed values or an ApiError out.
import { ApiError } from '../errors.js';
import { createValidator, type FieldRules } from '../validation.js';
import { MAX_ID, MAX_NAME_CODE_POINTS, NewPet, PET_STATUSES } from './schemas.js';

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

/** The rule text for a status, for messages of other resources that take one. */
export const PET_STATUS_RULE = STATUS_RULE;
