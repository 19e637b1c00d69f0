// The `paths` of the document, walked from the route table: each route's own description (operation.ts)
// with what every API route shares added here: the `animals` tag, bearer security, the rate-limit headers
// on every answer, 401/429/500/503, and for a deprecated route `deprecated`, its headers on every answer
// and its 410. Nothing here names a path or an operation.
import { ERRORS } from '../../core/errors.js';
import type { Deprecation, Route } from '../route.js';
import {
  BEARER_SECURITY,
  COMMON_ERRORS,
  errorResponse,
  headerObject,
  IDEMPOTENCY_KEY_PARAMETER,
  IDEMPOTENT_REPLAYED_HEADER,
  RATE_LIMIT_HEADERS,
} from './components.js';
import type { Operation, Parameter, RequestBodyDescription, SuccessDescription } from './operation.js';
import { type Json, schemaOrRef } from './schemas.js';

/** The one tag of every operation. */
export const API_TAG = { name: 'animals', description: 'Animals offered for sale.' };

/** Who answers an operation: this service (an API route) or a subscriber's endpoint (a webhook). */
export type Answerer = 'api' | 'receiver';

// The documented form of each header a deprecation sends, by its name in `Deprecation.headers`.
const DEPRECATION_HEADERS: Record<string, { name: string; describe(value: string): string }> = {
  deprecation: { name: 'Deprecation', describe: (value) => `RFC 9745: deprecated since this time (${value}).` },
  sunset: { name: 'Sunset', describe: (value) => `RFC 8594: removed at ${value}; 410 from then on.` },
  link: { name: 'Link', describe: (value) => value },
};

/** The headers every answer of a deprecated route carries, each described with the value it has. */
function deprecationHeaders(deprecation: Deprecation): Json {
  const headers: Json = {};
  for (const [name, value] of Object.entries(deprecation.headers)) {
    const documented = DEPRECATION_HEADERS[name];
    if (documented === undefined) throw new TypeError(`no description of the deprecation header "${name}"`);
    headers[documented.name] = headerObject({ description: documented.describe(value), type: 'string' });
  }
  return headers;
}

function parameterObject({ name, in: where, required, description, schema }: Parameter): Json {
  return { name, in: where, required, description, schema: schemaOrRef(schema) };
}

/** The success answer: the shared headers, its own, then those of a deprecation (`extraHeaders`). */
function successResponse(success: SuccessDescription, shared: Json, extraHeaders: Json): Json {
  const headers: Json = { ...shared };
  for (const [name, header] of Object.entries(success.headers ?? {})) headers[name] = headerObject(header);
  Object.assign(headers, extraHeaders);
  const response: Json = { description: success.description, headers };
  if (success.body !== undefined) {
    response.content = {
      'application/json': { schema: schemaOrRef(success.body.schema), example: success.body.example },
    };
  }
  return response;
}

/** Adds `response` under `status`; one answer per status (a programmer error otherwise). */
function addResponse(responses: Json, status: number | string, response: unknown, operationId: string): void {
  if (Object.hasOwn(responses, status)) throw new TypeError(`${operationId} describes status ${status} twice`);
  responses[status] = response;
}

/** The Responses Object: the success, the operation's errors, a deprecated route's 410, the shared ones. */
function responsesObject(operation: Operation, answerer: Answerer, deprecation: Deprecation | undefined): Json {
  const { operationId, success } = operation;
  const api = answerer === 'api';
  const extraHeaders = deprecation === undefined ? {} : deprecationHeaders(deprecation);
  const responses: Json = {};
  const replayed =
    operation.acceptsIdempotencyKey === true ? { 'Idempotent-Replayed': IDEMPOTENT_REPLAYED_HEADER } : {};
  addResponse(
    responses,
    success.status,
    successResponse(success, api ? { ...RATE_LIMIT_HEADERS, ...replayed } : {}, extraHeaders),
    operationId,
  );
  for (const { code, description } of operation.errors)
    addResponse(responses, ERRORS[code].status, errorResponse(code, description, extraHeaders), operationId);
  if (deprecation !== undefined) {
    const gone = errorResponse('gone', 'The operation has been removed (from its sunset date on).', extraHeaders);
    addResponse(responses, ERRORS.gone.status, gone, operationId);
  }
  if (api) {
    for (const [status, response] of Object.entries(COMMON_ERRORS))
      addResponse(responses, status, response, operationId);
  }
  return responses;
}

/** The Request Body Object: one entry per media type, each with the same schema and its own example. */
function requestBodyObject({ schema, mediaTypes, optional }: RequestBodyDescription): Json {
  const written = schemaOrRef(schema);
  const content: Json = {};
  for (const [type, { example }] of Object.entries(mediaTypes)) content[type] = { schema: written, example };
  return { required: optional !== true, content };
}

/**
 * The Operation Object of `operation`. For an API route, with what every API answer shares and, when
 * `deprecation` is given, what a deprecated route adds; for a webhook, as the receiver is to answer it.
 */
export function operationObject(operation: Operation, answerer: Answerer, deprecation?: Deprecation): Json {
  const { operationId, summary, description } = operation;
  const object: Json = { operationId, summary, description };
  if (deprecation !== undefined) object.deprecated = true;
  object.tags = [API_TAG.name];
  // A delivery carries no API key: the receiver checks its Standard Webhooks signature instead, so the
  // document's bearer requirement is lifted there (an empty list, as OpenAPI 3.1 says).
  object.security = answerer === 'api' ? BEARER_SECURITY : [];
  if (operation.stability !== undefined) object['x-stability'] = operation.stability;
  const parameters = (operation.parameters ?? []).map(parameterObject);
  if (operation.acceptsIdempotencyKey === true) parameters.unshift(IDEMPOTENCY_KEY_PARAMETER);
  if (parameters.length > 0) object.parameters = parameters;
  if (operation.requestBody !== undefined) object.requestBody = requestBodyObject(operation.requestBody);
  object.responses = responsesObject(operation, answerer, deprecation);
  return object;
}

/** Checks that the path parameters of `route` are exactly the `{name}` segments of its path. */
function checkPathParameters(route: Route): void {
  const inPath = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).sort();
  const described = (route.operation.parameters ?? [])
    .filter((parameter) => parameter.in === 'path')
    .map((parameter) => parameter.name)
    .sort();
  if (inPath.join() !== described.join()) {
    throw new TypeError(
      `${route.operation.operationId}: path parameters [${described.join(', ')}] do not match ${route.path}`,
    );
  }
}

/**
 * The `paths` section: every route of the table, by path in the order the table first names it, except
 * that a path whose every route is deprecated comes last, so the reference shows what to use first.
 */
export function pathsOf(routes: readonly Route[]): Json {
  const retired = (path: string): boolean =>
    routes.every((route) => route.path !== path || route.deprecation !== undefined);
  const ordered = [...routes.filter((route) => !retired(route.path)), ...routes.filter((route) => retired(route.path))];
  const paths: Record<string, Json> = {};
  const operationIds = new Set<string>();
  for (const route of ordered) {
    checkPathParameters(route);
    if (operationIds.has(route.operationId)) throw new TypeError(`operationId ${route.operationId} is used twice`);
    operationIds.add(route.operationId);
    const item = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (Object.hasOwn(item, method)) throw new TypeError(`route ${route.method} ${route.path} is described twice`);
    item[method] = operationObject(route.operation, 'api', route.deprecation);
  }
  return paths;
}
