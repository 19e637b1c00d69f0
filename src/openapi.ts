// The OpenAPI 3.1 description of the API, generated from the TypeBox schemas that validate requests
// (README "How the API behaves": never a hand-kept copy). Paths are relative to the servers, which end in /v1.
import { ERRORS, type ErrorCode } from './errors.js';
import { ListOrdersQuery, NewOrder, Order, OrderId, OrderStatus, Orders, OrderUpdate } from './orders/schemas.js';
import { ListPetsQuery, NewPet, Pet, PetId, PetStatus, Pets } from './pets/schemas.js';
import { ErrorSchema } from './schemas.js';

type Json = Record<string, unknown>;

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
  return JSON.parse(JSON.stringify(schema)) as Json;
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
      description: 'An HTTP and JSON store of animals offered for sale.',
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
              content: { 'application/json': { schema: ref('Pets') } },
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
          tags: ['animals'],
          security: [{ bearerAuth: [] }],
          parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
          requestBody: { required: true, content: { 'application/json': { schema: ref('NewPet') } } },
          responses: {
            201: {
              description:
                'The animal, with its assigned id (or the stored answer of an earlier request with the same Idempotency-Key).',
              headers: {
                ...RATE_LIMIT_HEADERS,
                Location: header('The address of the new animal.', { type: 'string' }),
              },
              content: { 'application/json': { schema: ref('Pet') } },
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
              content: { 'application/json': { schema: ref('Pet') } },
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
        Unavailable: errorResponse('unavailable', 'Storage cannot accept writes, or the service is stopping.', {
          'Retry-After': { $ref: '#/components/headers/Retry-After' },
        }),
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
    content: { 'application/json': { schema: ref('Order') } },
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
            content: { 'application/json': { schema: ref('Orders') } },
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
        parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }],
        requestBody: { required: true, content: { 'application/json': { schema: ref('NewOrder') } } },
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
        parameters: [orderId],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: ref('OrderUpdate') },
            'application/merge-patch+json': { schema: ref('OrderUpdate') },
          },
        },
        responses: move,
      },
      delete: {
        ...common,
        operationId: 'cancelOrder',
        summary: 'Cancel a placed order (the animal is available again)',
        parameters: [orderId],
        responses: move,
      },
    },
  };
}
