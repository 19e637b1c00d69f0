// How a route describes itself to the OpenAPI document: the parts only the route knows (its id, words,
// parameters, body, success and errors). What every route shares (the tag, bearer security, the
// rate-limit headers, 401/429/500/503, and a deprecated route's headers and 410) is added by the builder,
// so a route cannot forget it. Schemas are the TypeBox objects that validate requests; a component
// schema is written as a `$ref` (schemas.ts).
import type { Static, TObject, TSchema } from 'typebox';
import type { ErrorCode } from '../../core/errors.js';

/** A header an answer carries, as the document describes it. */
export interface HeaderDescription {
  description: string;
  type: 'integer' | 'string';
}

/** A path or query parameter, its schema one that validates it. */
export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description: string;
  schema: TSchema;
}

/** The JSON body a route reads: its schema, and each media type it accepts with an example. */
export interface RequestBodyDescription {
  schema: TSchema;
  /** The media types the route reads (the dispatcher refuses others with 415), each with its example. */
  mediaTypes: Readonly<Record<string, { example: unknown }>>;
  /**
   * Whether the body may be left out: every member of its schema is optional, and a request without a
   * body (or with an empty one) is read as `{}`, as it would be with an empty object.
   */
  optional?: true;
}

/** The answer of an operation that succeeded. */
export interface SuccessDescription {
  status: 200 | 201 | 202 | 204;
  description: string;
  /** The JSON body's schema and an example; absent for an answer without a body (204). */
  body?: { schema: TSchema; example: unknown };
  /** Headers of this answer besides those every answer carries (rate limits, X-Request-Id). */
  headers?: Readonly<Record<string, HeaderDescription>>;
}

/** An error answer of the operation; its status is the error table's for `code`, `code` its example. */
export interface ErrorDescription {
  code: ErrorCode;
  /** Every reason for this status, other codes of the same status included. */
  description: string;
}

/** What the OpenAPI document says of one route. */
export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  /** Path parameters (each `{name}` of the path, exactly) and query parameters. */
  parameters?: readonly Parameter[];
  /** Whether a retry is made safe by an `Idempotency-Key` header (the dispatcher then claims the key). */
  acceptsIdempotencyKey?: boolean;
  requestBody?: RequestBodyDescription;
  success: SuccessDescription;
  /** The operation's own error answers; 401, 429, 500, 503 (and 410 when deprecated) are added for every route. */
  errors: readonly ErrorDescription[];
  /** `beta`: written as `x-stability: beta`, an operation whose shape may still change. */
  stability?: 'beta';
}

/** The path parameter `name`, required as every path parameter is. */
export function pathParameter(name: string, schema: TSchema, description: string): Parameter {
  return { name, in: 'path', required: true, description, schema };
}

/**
 * One query parameter per property of `query`, in its order, with the property's schema, required as
 * the object says, and a description for each (the type asks for every one).
 */
export function queryParameters<Q extends TObject>(
  query: Q,
  descriptions: Readonly<Record<keyof Static<Q> & string, string>>,
): Parameter[] {
  const required: readonly string[] = query.required ?? [];
  return Object.entries(query.properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    description: (descriptions as Readonly<Record<string, string>>)[name] ?? '',
    schema,
  }));
}

/** The paging headers of a listing of `items` ("animals", "orders"): `Link`, `X-Next`, `X-Total-Count`. */
export function listingHeaders(items: string): Record<string, HeaderDescription> {
  return {
    Link: { description: `\`<...>; rel="next"\` when more ${items} follow.`, type: 'string' },
    'X-Next': { description: `The URL of the next page, when more ${items} follow.`, type: 'string' },
    'X-Total-Count': { description: `How many ${items} match the filter.`, type: 'integer' },
  };
}

/** The `Location` header of a 201, the address of the new `item` ("animal", "order"). */
export function locationHeader(item: string): Record<string, HeaderDescription> {
  return { Location: { description: `The address of the new ${item}.`, type: 'string' } };
}
