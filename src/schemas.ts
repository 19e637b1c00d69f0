// Schemas shared by every resource: the Error body of SPEC.md section 2.
import Type from 'typebox';

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
