// The pet resources of the OpenAPI document as TypeBox schemas. The same objects validate requests
// (compiled once, in validate.ts) and describe the API (http/openapi/); the TypeScript types flow from them.
import Type from 'typebox';

/** The largest integer JSON can carry exactly: 2^53 − 1 (README "How the API behaves"). */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
/** The longest name, in Unicode code points (README "How the API behaves"). */
export const MAX_NAME_CODE_POINTS = 200;

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;

export const PetStatus = Type.Enum(PET_STATUSES, {
  description: 'Availability status of an animal.',
});
export type PetStatus = Type.Static<typeof PetStatus>;

const Name = Type.String({
  minLength: 1,
  maxLength: MAX_NAME_CODE_POINTS,
  // At least one character that trim() keeps: ECMAScript's \s is exactly the set trim() removes.
  pattern: '\\S',
  description: "The animal's name: 1 to 200 Unicode code points, not all white space, stored exactly as sent.",
});

const CategoryId = Type.Integer({
  minimum: 1,
  maximum: MAX_ID,
  format: 'int64',
  description: 'Identifier of the category the animal belongs to.',
});

export const NewPet = Type.Object(
  {
    name: Name,
    categoryId: CategoryId,
    status: Type.Optional(PetStatus),
  },
  { additionalProperties: false, description: 'An animal to add. `status` defaults to `available`.' },
);
export type NewPet = Type.Static<typeof NewPet>;

export const Pet = Type.Object(
  {
    id: Type.Integer({
      minimum: 1,
      maximum: MAX_ID,
      format: 'int64',
      description: 'Unique identifier assigned by the service.',
    }),
    name: Name,
    categoryId: CategoryId,
    status: PetStatus,
  },
  { additionalProperties: false, description: 'An animal offered for sale.' },
);
export type Pet = Type.Static<typeof Pet>;

export const Pets = Type.Array(Pet, { description: 'A page of animals, in ascending id order.' });

/** The query of `GET /pets`, after its strings were turned into values (see validate.ts). */
export const ListPetsQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Maximum number of animals returned.' }),
  ),
  status: Type.Optional(PetStatus),
  // Any text: one this service did not issue (empty, too long, forged) is refused as invalid_cursor when read.
  cursor: Type.Optional(Type.String({ description: 'Opaque cursor from the `Link` header of the previous page.' })),
});
export type ListPetsQuery = Type.Static<typeof ListPetsQuery>;

/** The path parameter `petId`, as a number (its text form is checked in validate.ts). */
export const PetId = Type.Integer({
  minimum: 1,
  maximum: MAX_ID,
  format: 'int64',
  description: 'Identifier of the animal.',
});
