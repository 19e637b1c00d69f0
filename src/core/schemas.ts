// Schemas and limits shared by every resource: the Error body, and the page sizes of listings.
import Type from 'typebox';

/** Page size of a listing when no `limit` is given. */
export const DEFAULT_PAGE_SIZE = 20;
/** The largest page of a listing. */
export const MAX_PAGE_SIZE = 100;

export const ErrorDetailSchema = Type.Object({
  path: Type.String({ description: 'JSON Pointer (or parameter name) of the value at fault.' }),
  message: Type.String(),
});

export const ErrorSchema = Type.Object(
  {
    code: Type.String({ description: 'Machine-readable error code.' }),
    message: Type.String({ description: 'Human-readable description naming the field, parameter or header at fault.' }),
    status: Type.Integer({ description: 'The HTTP status code.' }),
    details: Type.Optional(Type.Array(ErrorDetailSchema)),
  },
  { description: 'An error answer.' },
);
