// The OpenAPI 3.1 description of the API, generated from the TypeBox schemas that validate requests
// (README "How the API behaves": never a hand-kept copy). Paths are relative to the servers, which end in /v1.
import { ERRORS, type ErrorCode } from './errors.js';
import { ListOrdersQuery, NewOrder, Order, OrderId, OrderStatus, Orders, OrderUpdate } from './orders/schemas.js';
import { ListPetsQuery, NewPet, Pet, PetId, PetStatus, Pets } from './pets/schemas.js';
import { ErrorSchema } from './schemas.js';

type Json = Record<string, unknown>;

// Examples, realistic and valid: a test lints the document (Spectral checks every example against its schema).
const PET_EXAMPLE = { id: 1, name: 'Rex', categoryId: 3, status: 'available' };
const PETS_EXAMPLE = [PET_EXAMPLE, { id: 2, name: 'Bella', categoryId: 1, status: 'pending' }];
const NEW_PET_EXAMPLE = { name: 'Rex', categoryId: 3 };
const ORDER_EXAMPLE = { id: 1, petId: 2, status: 'placed', createdAt: '2026-11-24T09:30:00.000Z' };
const ORDERS_EXAMPLE = [ORDER_EXAMPLE];

/** What a reader of the reference needs first: how to get a key and send it, and where the API lives. */
const INTRODUCTION = [
  'An HTTP and JSON store of animals offered for sale.',
  '',
  '**Quick start.** The service creates an API key on its first start and prints it once; more keys come from',
  '`animal-store keys create --plan free|pro|business|enterprise`. Send the key on every request as',
  '`Authorization: Bearer <key>`. Every path below is relative to the server address, which ends in the base',
  'path (`/v1` by default): `curl -H "Authorization: Bearer $KEY" http://127.0.0.1:8080/v1/pets`.',
  '',
  '**Limits.** Each key has a per-minute and a per-day budget (its plan); every answer carries the',
  '`X-RateLimit-*`, `RateLimit` and `RateLimit-Policy` headers, and a refusal is `429` with `Retry-After`.',
  '',
  '**Errors** are `{code, message, status}` with a machine-readable `code`; every answer has an `X-Request-Id`.',
  '**Retries** of a POST are safe with an `Idempotency-Key` header.',
].join('\n');

/** JSON Schema's `enum` without `type` leaves code generators guessing: a string enum says it is one. */
function withEnumTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withEnumTypes);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Json).map(([key, item]) => [key, withEnumTypes(item)] as const);
  const object = Object.fromEntries(entries) as Json;
  const values = object.enum;
  if (Array.isArray(values) && object.type === undefined && values.every((item) => typeof item === 'string'))
    return { type: 'string', ...object };
  return object;
}

/** What the document needs to know of the running configuration. */
export interface OpenApiOptions {
  publicUrl: string;
  stagingUrl: string;
  basePath: string;
  sunsetAt: number;
  deprecatedAt: number;
}

// TypeBox schemas are JSON Schema objects; a JSON round trip drops TypeBox's own non-JSON markers.
function plain(schema: unknown): Json {
  return withEnumTypes(JSON.parse(JSON.stringify(schema))) as Json;
}

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
const header = (description: string, schema: Json = { type: 'integer' }): Json => ({ description, schema });

const RATE_LIMIT_HEADERS: Json = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
  RateLimit: { $ref: '#/components/headers/RateLimit' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
  'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' },
};

function errorResponse(code: ErrorCode, description: string, extraHeaders: Json = {}): Json {
  return {
    description,
    headers: { ...RATE_LIMIT_HEADERS, ...extraHeaders },
    content: {
      'application/json': {
        schema: ref('Error'),
        example: { code, message: ERRORS[code].message, status: ERRORS[code].status },
      },
    },
  };
}

const COMMON_ERRORS: Json = {
  401: { $ref: '#/components/responses/Unauthorized' },
  429: { $ref: '#/components/responses/TooManyRequests' },
  500: { $ref: '#/components/responses/InternalError' },
  503: { $ref: '#/components/responses/Unavailable' },
};

/** The OpenAPI document as a plain object. */
export function buildOpenApi(options: OpenApiOptions): Json {
  const listQuery = plain(ListPetsQuery) as { properties: Record<string, Json> };
  const sunset = new Date(options.sunsetAt).toUTCString();
  const deprecationHeaders: Json = {
    Deprecation: header(`RFC 9745: deprecated since this time (@${Math.floor(options.deprecatedAt / 1000)}).`, {
      type: 'string',
    }),
    Sunset: header(`RFC 8594: removed at ${sunset}; 410 from then on.`, { type: 'string' }),
    Link: header(`<${options.basePath}/pets>; rel="successor-version"`, { type: 'string' }),
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Animal Store',
      version: '1.0.0',
      description: INTRODUCTION,
      contact: { name: 'animal-store maintainers' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: options.publicUrl, description: 'Production' },
      { url: options.stagingUrl, description: 'Staging' },
    ],
    tags: [{ name: 'animals', description: 'Animals offered for sale.' }],
    security: [{ bearerAuth: [] }],
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          summary: 'List animals',
          description:
            'A page of animals in ascending id order, optionally of one status. `X-Total-Count` gives how many match; while more follow, `Link: <…>; rel="next"` and `X-Next` give the next page, whose signed cursor keeps the filter.',
          tags: ['animals'],
          security: [{ bearerAuth: [] }],
          parameters: [
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: 'Maximum number of animals returned (1 to 100, default 20).',
              schema: listQuery.properties.limit,
            },
            {
              name: 'status',
              in: 'query',
              required: false,
              description: 'Returns animals with this availability status.',
              schema: ref('PetStatus'),
            },
            {
              name: 'cursor',
              in: 'query',
              required: false,
              description: 'Opaque cursor from the Link header of the previous page.',
              schema: listQuery.properties.cursor,
            },
          ],
          responses: {
            200: {
              description: 'A page of animals, in ascending id order.',
              headers: {
                ...RATE_LIMIT_HEADERS,
                Link: header('`<...>; rel="next"` when more animals follow.', { type: 'string' }),
                'X-Next': header('The URL of the next page, when more animals follow.', { type: 'string' }),
                'X-Total-Count': header('How many animals match the filter.'),
              },
              content: { 'application/json': { schema: ref('Pets'), example: PETS_EXAMPLE } },
            },
            400: errorResponse(
              'invalid_query',
              'A query parameter has a bad value or is repeated (`invalid_query`), or the cursor was not issued for this listing (`invalid_cursor`).',
            ),
            ...COMMON_ERRORS,
          },
        },
        post: {
          operationId: 'createPet',
          summary: 'Add an animal',
          description:
            'Adds an animal and assigns its id; `status` defaults to `available`. The answer is sent once the animal is stored durably. With an `Idempotency-Key`, a repeat of the same request within 24 hours gets the first answer again (`Idempotent-Replayed: true`) and creates nothing.',
          tags: ['animals'],
          security: [{ bearerAuth: [] }],
          parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: ref('NewPet'), example: NEW_PET_EXAMPLE } },
          },
          responses: {
            201: {
              description:
                'The animal, with its assigned id (or the stored answer of an earlier request with the same Idempotency-Key).',
              headers: {
                ...RATE_LIMIT_HEADERS,
                Location: header('The address of the new animal.', { type: 'string' }),
              },
              content: { 'application/json': { schema: ref('Pet'), example: PET_EXAMPLE } },
            },
            400: errorResponse(
              'invalid_body',
              'The body is not JSON (`invalid_json`) or breaks the NewPet schema (`invalid_body`).',
            ),
            409: errorResponse(
              'conflict',
              'The Idempotency-Key was used with another body, or its first request is still in flight.',
            ),
            413: errorResponse('payload_too_large', 'The body is larger than the limit.'),
            415: errorResponse('unsupported_media_type', 'The body is not application/json.'),
            ...COMMON_ERRORS,
          },
        },
      },
      ...orderPaths(),
      '/pets/{petId}': {
        get: {
          operationId: 'getPet',
          summary: 'Get an animal',
          description: `Deprecated: removed on ${sunset}. Use GET /pets with a status filter instead.`,
          deprecated: true,
          tags: ['animals'],
          security: [{ bearerAuth: [] }],
          parameters: [
            {
              name: 'petId',
              in: 'path',
              required: true,
              description: 'Identifier of the animal to fetch.',
              schema: plain(PetId),
            },
          ],
          responses: {
            200: {
              description: 'The animal.',
              headers: { ...RATE_LIMIT_HEADERS, ...deprecationHeaders },
              content: { 'application/json': { schema: ref('Pet'), example: PET_EXAMPLE } },
            },
            400: errorResponse(
              'invalid_parameter',
              'petId is not a whole number from 1 to 2^53 − 1.',
              deprecationHeaders,
            ),
            404: errorResponse('not_found', 'No animal has this id.', deprecationHeaders),
            410: errorResponse('gone', 'The operation has been removed (from its sunset date on).', deprecationHeaders),
            ...COMMON_ERRORS,
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'The API key, sent as `Authorization: Bearer <key>`.',
        },
      },
      schemas: {
        NewPet: plain(NewPet),
        Pet: plain(Pet),
        Pets: plain(Pets),
        PetStatus: plain(PetStatus),
        Error: plain(ErrorSchema),
        Order: plain(Order),
        Orders: plain(Orders),
        NewOrder: plain(NewOrder),
        OrderUpdate: plain(OrderUpdate),
        OrderStatus: plain(OrderStatus),
      },
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
        'X-RateLimit-Limit': header('The capacity of the bucket with fewer tokens left (per minute or per day).'),
        'X-RateLimit-Remaining': header('Whole requests left in that bucket after this one.'),
        'X-RateLimit-Reset': header('Unix time, in seconds rounded up, when that bucket is full again.'),
        RateLimit: header(
          'draft-ietf-httpapi-ratelimit-headers: `"minute";r=<remaining>;t=<seconds>` for the same bucket.',
          { type: 'string' },
        ),
        'RateLimit-Policy': header(
          'draft-ietf-httpapi-ratelimit-headers: `"minute";q=60;w=60, "day";q=1000;w=86400`.',
          { type: 'string' },
        ),
        'Retry-After': header('RFC 9110 §10.2.3: seconds to wait before retrying (at least 1).'),
        'X-Request-Id': header("The request id: the client's own when it sent a valid one.", { type: 'string' }),
      },
      responses: {
        Unauthorized: errorResponse('unauthorized', 'The API key is missing or invalid.', {
          'WWW-Authenticate': header(
            '`Bearer realm="animal-store"`, with `error="invalid_token"` when a key was sent.',
            { type: 'string' },
          ),
        }),
        TooManyRequests: errorResponse(
          'rate_limited',
          "Over the plan's limit (`rate_limited`) or temporarily banned (`temporarily_banned`).",
          {
            'Retry-After': { $ref: '#/components/headers/Retry-After' },
          },
        ),
        InternalError: errorResponse('internal_error', 'A bug; quote X-Request-Id when reporting it.'),
        Unavailable: errorResponse(
          'unavailable',
          'The store or the rate limiter cannot take the request now (storage refusing writes, PostgreSQL or Redis unreachable), the service is at capacity, or it is stopping.',
          {
            'Retry-After': { $ref: '#/components/headers/Retry-After' },
          },
        ),
      },
    },
  };
}

/** The order operations of README "Store orders (beta) and safe retries", each `x-stability: beta`. */
function orderPaths(): Json {
  const orderQuery = plain(ListOrdersQuery) as { properties: Record<string, Json> };
  const orderId = {
    name: 'orderId',
    in: 'path',
    required: true,
    description: 'Identifier of the order.',
    schema: plain(OrderId),
  };
  // all operations are grouped under the tag `animals`.
  const tags = ['animals'];
  const common = { tags, security: [{ bearerAuth: [] }], 'x-stability': 'beta' };
  // DELETE takes no body, but one it is sent is held to the same limit and media type.
  const bodyErrors = {
    413: errorResponse('payload_too_large', 'The body is larger than the limit.'),
    415: errorResponse('unsupported_media_type', 'A non-empty body that is not JSON.'),
  };
  const orderAnswer = (description: string): Json => ({
    description,
    headers: RATE_LIMIT_HEADERS,
    content: { 'application/json': { schema: ref('Order'), example: ORDER_EXAMPLE } },
  });
  const move = {
    200: orderAnswer('The order in its new state.'),
    400: errorResponse(
      'invalid_parameter',
      'orderId is malformed (`invalid_parameter`) or the body breaks OrderUpdate (`invalid_body`).',
    ),
    404: errorResponse('not_found', 'No order has this id.'),
    409: errorResponse('conflict', 'Only a placed order can become delivered or cancelled.'),
    ...bodyErrors,
    ...COMMON_ERRORS,
  };
  return {
    '/store/orders': {
      get: {
        ...common,
        operationId: 'listOrders',
        summary: 'List orders',
        description:
          'A page of orders in ascending id order, optionally of one state, paged like the animals (`X-Total-Count`, `Link`, `X-Next`).',
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: 'Maximum number of orders returned (1 to 100, default 20).',
            schema: orderQuery.properties.limit,
          },
          {
            name: 'status',
            in: 'query',
            required: false,
            description: 'Returns orders in this state.',
            schema: ref('OrderStatus'),
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'Opaque cursor from the Link header of the previous page.',
            schema: orderQuery.properties.cursor,
          },
        ],
        responses: {
          200: {
            description: 'A page of orders, in ascending id order.',
            headers: {
              ...RATE_LIMIT_HEADERS,
              Link: header('`<...>; rel="next"` when more orders follow.', { type: 'string' }),
              'X-Next': header('The URL of the next page, when more orders follow.', { type: 'string' }),
              'X-Total-Count': header('How many orders match the filter.'),
            },
            content: { 'application/json': { schema: ref('Orders'), example: ORDERS_EXAMPLE } },
          },
          400: errorResponse(
            'invalid_query',
            'A query parameter has a bad value or is repeated, or the cursor is not valid here.',
          ),
          ...COMMON_ERRORS,
        },
      },
      post: {
        ...common,
        operationId: 'placeOrder',
        summary: 'Order an available animal (it becomes pending)',
        description:
          'Places an order for an available animal, which becomes `pending` in the same step: of two orders for one animal at the same moment, one is placed and the other gets `409`. Safe to retry with an `Idempotency-Key`.',
        parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: ref('NewOrder'), example: { petId: 2 } } },
        },
        responses: {
          201: {
            ...orderAnswer('The order, placed.'),
            headers: { ...RATE_LIMIT_HEADERS, Location: header('The address of the new order.', { type: 'string' }) },
          },
          400: errorResponse('invalid_body', 'The body is not JSON or breaks NewOrder.'),
          404: errorResponse('not_found', 'No animal has this id.'),
          409: errorResponse(
            'conflict',
            'The animal is not available, or the Idempotency-Key was used with another body or is in flight.',
          ),
          ...bodyErrors,
          ...COMMON_ERRORS,
        },
      },
    },
    '/store/orders/{orderId}': {
      get: {
        ...common,
        operationId: 'getOrder',
        summary: 'Get an order',
        description: 'One order, in its current state.',
        parameters: [orderId],
        responses: {
          200: orderAnswer('The order.'),
          400: errorResponse('invalid_parameter', 'orderId is malformed.'),
          404: errorResponse('not_found', 'No order has this id.'),
          ...COMMON_ERRORS,
        },
      },
      patch: {
        ...common,
        operationId: 'updateOrder',
        summary: 'Deliver or cancel a placed order',
        description:
          'Moves a `placed` order on: `delivered` makes its animal `sold`, `cancelled` makes it `available` again. Any other move is `409`.',
        parameters: [orderId],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: ref('OrderUpdate'), example: { status: 'delivered' } },
            'application/merge-patch+json': { schema: ref('OrderUpdate'), example: { status: 'cancelled' } },
          },
        },
        responses: move,
      },
      delete: {
        ...common,
        operationId: 'cancelOrder',
        summary: 'Cancel a placed order (the animal is available again)',
        description:
          'The same as `PATCH` with `{"status": "cancelled"}`: the order becomes `cancelled` and its animal `available`.',
        parameters: [orderId],
        responses: move,
      },
    },
  };
}
