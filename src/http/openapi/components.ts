// What every operation of the document shares: the rate-limit headers every API answer carries, the
// error answers any route can give (401, 429, 500, 503), the Idempotency-Key parameter, bearer security,
// and the `components` section they live in (README "Keys and plans", "Errors").
import { ERRORS, type ErrorCode } from '../../core/errors.js';
import type { HeaderDescription } from './operation.js';
import { componentSchemas, type Json, schemaRef } from './schemas.js';

/** The security requirement of every API operation: the API key as a bearer token. */
export const BEARER_SECURITY: readonly Json[] = [{ bearerAuth: [] }];

/** The `components.parameters` name of the Idempotency-Key header. */
export const IDEMPOTENCY_KEY_PARAMETER: Json = { $ref: '#/components/parameters/IdempotencyKey' };

/** A header as the document writes it. */
export function headerObject({ description, type }: HeaderDescription): Json {
  return { description, schema: { type } };
}

/** The headers of every API answer, refusals included: the limiter's and X-Request-Id. */
export const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

/** The header of an answer given again for a repeated Idempotency-Key. */
export const IDEMPOTENT_REPLAYED_HEADER: Json = { $ref: '#/components/headers/Idempotent-Replayed' };

/** An error answer: the Error body, with `code`'s default message as its example. */
export function errorResponse(code: ErrorCode, description: string, extraHeaders: Json = {}): Json {
  return {
    description,
    headers: { ...RATE_LIMIT_HEADERS, ...extraHeaders },
    content: {
      'application/json': {
        schema: schemaRef('Error'),
        example: { code, message: ERRORS[code].message, status: ERRORS[code].status },
      },
    },
  };
}

/** The error answers any API route can give, by status. */
export const COMMON_ERRORS: Json = {
  401: { $ref: '#/components/responses/Unauthorized' },
  429: { $ref: '#/components/responses/TooManyRequests' },
  500: { $ref: '#/components/responses/InternalError' },
  503: { $ref: '#/components/responses/Unavailable' },
};

const RETRY_AFTER: Json = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };

const integerHeader = (description: string): Json => headerObject({ description, type: 'integer' });
const stringHeader = (description: string): Json => headerObject({ description, type: 'string' });

/** The `components` section: schemas, security scheme, shared parameters, headers and error answers. */
export function components(): Json {
  return {
    securitySchemes: {
      bearerAuth: {
        type: 'http',
        scheme: 'bearer',
        description: 'The API key, sent as `Authorization: Bearer <key>`.',
      },
    },
    schemas: componentSchemas(),
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          '1 to 255 visible ASCII characters. A retry with the same key and an equal body gets the stored answer again (with `Idempotent-Replayed: true`) for 24 hours; another body is 409.',
        schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      },
    },
    headers: {
      'X-RateLimit-Limit': integerHeader('The capacity of the bucket with fewer tokens left (per minute or per day).'),
      'X-RateLimit-Remaining': integerHeader('Whole requests left in that bucket after this one.'),
      'X-RateLimit-Reset': integerHeader('Unix time, in seconds rounded up, when that bucket is full again.'),
      RateLimit: stringHeader(
        'draft-ietf-httpapi-ratelimit-headers: `"minute";r=<remaining>;t=<seconds>` for the same bucket.',
      ),
      'RateLimit-Policy': stringHeader(
        'draft-ietf-httpapi-ratelimit-headers: `"minute";q=60;w=60, "day";q=1000;w=86400`.',
      ),
      'Retry-After': integerHeader('RFC 9110 §10.2.3: seconds to wait before retrying (at least 1).'),
      'X-Request-Id': stringHeader("The request id: the client's own when it sent a valid one."),
      'Idempotent-Replayed': stringHeader(
        '`true` on an answer stored for an earlier request with the same Idempotency-Key and an equal body, given again; absent otherwise.',
      ),
    },
    responses: {
      Unauthorized: errorResponse('unauthorized', 'The API key is missing or invalid.', {
        'WWW-Authenticate': stringHeader(
          '`Bearer realm="animal-store"`, with `error="invalid_token"` when a key was sent.',
        ),
      }),
      TooManyRequests: errorResponse(
        'rate_limited',
        "Over the plan's limit (`rate_limited`) or temporarily banned (`temporarily_banned`).",
        RETRY_AFTER,
      ),
      InternalError: errorResponse('internal_error', 'A bug; quote X-Request-Id when reporting it.'),
      Unavailable: errorResponse(
        'unavailable',
        'The store or the rate limiter cannot take the request now (storage refusing writes, PostgreSQL or Redis unreachable), the service is at capacity, or it is stopping.',
        RETRY_AFTER,
      ),
    },
  };
}
