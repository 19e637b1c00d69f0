// Turns TypeBox's validation errors into the contract's answer: `400 invalid_body` (or another code) with a
// message that names each field and its rule, and `details` with one `{path, message}` per fault. The
// service layer calls these validators on the input it is given (docs/layout.md: where HTTP ends).
import type { Static, TInteger, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { ApiError, type ErrorCode, type ErrorDetail } from './errors.js';
import { MAX_PAGE_SIZE } from './schemas.js';

/** How each property is described to a client when its value breaks the schema. */
export type FieldRules = Record<string, string>;

/** A compiled check that returns the value typed, or throws an `ApiError` naming every fault. */
export type Validate<T> = (value: unknown) => T;

/**
 * Compiles `schema` once and returns its validator. `typeName` names the whole value in messages
 * ("NewPet"), `rules` say what each property must be ("an integer from 1 to 9007199254740991").
 */
export function createValidator<S extends TSchema>(
  schema: S,
  typeName: string,
  rules: FieldRules,
  where: 'body' | 'query' = 'body',
): Validate<Static<S>> {
  const compiled = Compile(schema);
  const allowed = Object.keys(rules)
    .map((name) => `"${name}"`)
    .join(', ');
  const code: ErrorCode = where === 'body' ? 'invalid_body' : 'invalid_query';
  return (value: unknown): Static<S> => {
    if (compiled.Check(value)) return value as Static<S>;
    let details = describeFaults(compiled.Errors(value), typeName, rules, allowed);
    if (where === 'query') {
      // Query parameters are named as such, not as JSON Pointers.
      details = details.map(({ path, message }) => ({ path: path.slice(1), message: `Query parameter ${message}` }));
    }
    throw new ApiError(code, details.map((detail) => detail.message).join('; '), details);
  };
}

/**
 * The check of a listing's query (`limit`, `status`, `cursor`) against its schema; `statusRule` says what
 * `status` must be. Faults are `invalid_query`, each naming its parameter.
 */
export function createListQueryValidator<S extends TSchema>(schema: S, statusRule: string): Validate<Static<S>> {
  return createValidator(
    schema,
    'the query',
    {
      limit: `an integer from 1 to ${MAX_PAGE_SIZE} in plain decimal digits`,
      status: statusRule,
      cursor: 'the opaque value from the Link header of the previous page',
    },
    'query',
  );
}

/**
 * The check of an id (`petId`, `orderId`) against its integer schema: a whole number in the schema's
 * range. Anything else, text included, is `invalid_parameter` naming the id. Callers that read ids from
 * text hand over the number when the text is plain decimal digits and the text itself otherwise, so the
 * rule is stated once for every caller and the message says how to write the id.
 */
export function createIdValidator(schema: TInteger, name: string): Validate<number> {
  const compiled = Compile(schema);
  // TypeBox keeps an integer's bounds on the schema object without typing them.
  const { minimum, maximum } = schema as { minimum?: number; maximum?: number };
  const message = `"${name}" must be a whole number from ${minimum} to ${maximum} in plain decimal digits`;
  const detail = `"${name}" must match ^[1-9][0-9]*$ and be at most ${maximum}`;
  return (value: unknown): number => {
    if (compiled.Check(value)) return value as number;
    throw new ApiError('invalid_parameter', message, [{ path: name, message: detail }]);
  };
}

interface SchemaFault {
  keyword: string;
  instancePath: string;
  params: unknown;
}

function describeFaults(
  faults: readonly SchemaFault[],
  typeName: string,
  rules: FieldRules,
  allowed: string,
): ErrorDetail[] {
  const byPath = new Map<string, string>();
  for (const fault of faults) {
    const params = (fault.params ?? {}) as Record<string, unknown>;
    if (fault.instancePath === '') {
      if (fault.keyword === 'required') {
        for (const name of asStrings(params.requiredProperties))
          byPath.set(`/${name}`, `"${name}" is required: it must be ${rules[name] ?? 'present'}`);
      } else if (fault.keyword === 'additionalProperties') {
        for (const name of asStrings(params.additionalProperties)) {
          byPath.set(
            `/${escapePointer(name)}`,
            `"${name}" is not a property of ${typeName}; the allowed properties are ${allowed}`,
          );
        }
      } else {
        byPath.set('', `The request body must be a JSON object (${typeName})`);
      }
      continue;
    }
    // The top-level property at fault: "/categoryId" or "/x/0" both belong to the first segment.
    const segment = fault.instancePath.slice(1).split('/')[0] ?? '';
    const name = unescapePointer(segment);
    const path = `/${segment}`;
    if (byPath.has(path)) continue;
    const rule = Object.hasOwn(rules, name) ? rules[name] : undefined;
    byPath.set(
      path,
      rule === undefined
        ? `"${name}" is not a property of ${typeName}; the allowed properties are ${allowed}`
        : `"${name}" must be ${rule}`,
    );
  }
  if (byPath.size === 0) byPath.set('', `The value does not match ${typeName}`);
  return [...byPath].map(([path, message]) => ({ path, message }));
}

function asStrings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

// RFC 6901 §4: "~" is written "~0" and "/" is written "~1" inside a JSON Pointer.
function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescapePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}
