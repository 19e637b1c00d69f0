// The OpenAPI 3.1 document of the API, derived from the route table and the TypeBox schemas that validate
// requests (README "How the API behaves": never a hand-kept copy). Paths are relative to the servers,
// which end in the base path. Beside the paths, only what is shared is written here: info, servers,
// the tag, security and the components; OpenAPI 3.1's `webhooks` come from an optional list.
import type { Route } from '../route.js';
import { components } from './components.js';
import type { Operation } from './operation.js';
import { API_TAG, operationObject, pathsOf } from './paths.js';
import type { Json } from './schemas.js';

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

/**
 * A request this service sends to its subscribers, for OpenAPI 3.1's top-level `webhooks`: described
 * like a route's operation (its request body is the payload; its answers are the receiver's).
 */
export interface WebhookDescription {
  /** Its key under `webhooks`, e.g. the event type. */
  name: string;
  operation: Operation;
}

/** What the document is built from. */
export interface OpenApiParts {
  /** The route table: every path and operation of the document comes from it. */
  routes: readonly Route[];
  /** The requests the service sends to subscribers; no `webhooks` section when absent or empty. */
  webhooks?: readonly WebhookDescription[];
  publicUrl: string;
  stagingUrl: string;
}

/** The OpenAPI document as a plain object. */
export function buildOpenApi(parts: OpenApiParts): Json {
  const document: Json = {
    openapi: '3.1.0',
    info: {
      title: 'Animal Store',
      version: '1.0.0',
      description: INTRODUCTION,
      contact: { name: 'animal-store maintainers' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [
      { url: parts.publicUrl, description: 'Production' },
      { url: parts.stagingUrl, description: 'Staging' },
    ],
    tags: [API_TAG],
    security: [{ bearerAuth: [] }],
    paths: pathsOf(parts.routes),
  };
  if (parts.webhooks !== undefined && parts.webhooks.length > 0) {
    document.webhooks = Object.fromEntries(
      parts.webhooks.map(({ name, operation }) => [name, { post: operationObject(operation, 'receiver') }]),
    );
  }
  document.components = components();
  return document;
}
