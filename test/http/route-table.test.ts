// One route table: the router, each 405's Allow and the OpenAPI paths all come from it, and a route
// cannot be declared without its description. Built without sockets, over an in-memory store.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { apiRoutes } from '../../src/app/http-handler.js';
import { DEFAULT_SETTINGS } from '../../src/config/settings.js';
import { isPending } from '../../src/core/awaitable.js';
import { systemClock } from '../../src/core/clock.js';
import { buildOpenApi } from '../../src/http/openapi/document.js';
import { defineRoute, type Route, type RouteInput } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { NewPet, Pet } from '../../src/pets/schemas.js';
import { createService } from '../../src/service/service.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import type { Store } from '../../src/store/store.js';
import { dispatchKeyRecord } from '../helpers/dispatcher.js';
import { described } from '../helpers/routes.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test walks an arbitrary JSON document by path
type Json = Record<string, any>;

let store: Store;
let routes: Route[];
before(async () => {
  store = await openEmbeddedStore({
    dataDir: undefined,
    clock: systemClock,
    durability: 'never',
    fsyncIntervalMs: 1000,
    compactMinRecords: 1000,
    warn: () => {},
  });
  routes = apiRoutes(createService(store, systemClock), DEFAULT_SETTINGS);
});
after(() => store.close());

const documentOf = (table: readonly Route[], webhooks?: Parameters<typeof buildOpenApi>[0]['webhooks']): Json =>
  buildOpenApi({ routes: table, webhooks, publicUrl: 'https://a.example/v1', stagingUrl: 'https://b.example/v1' });

/** Every operation of a document as "METHOD path operationId", sorted. */
function operationsOf(document: Json): string[] {
  return Object.entries(document.paths as Json)
    .flatMap(([path, item]) =>
      Object.entries(item as Json).map(
        ([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`,
      ),
    )
    .sort();
}

const answerNothing = () => ({ status: 204, body: '' });

test("the document's paths and operations are exactly the route table's", () => {
  const fromTable = routes.map((route) => `${route.method} ${route.path} ${route.operationId}`).sort();
  assert.deepEqual(operationsOf(documentOf(routes)), fromTable);
  assert.equal(fromTable.length, 20);
});

test('nothing is hand-listed: a table of other routes documents those routes and nothing else', () => {
  const webhooks = defineRoute({
    method: 'DELETE',
    path: '/webhooks/{webhookId}',
    operation: described('deleteWebhook', {
      parameters: [
        {
          name: 'webhookId',
          in: 'path',
          required: true,
          description: 'The subscription.',
          schema: NewPet.properties.name,
        },
      ],
      success: { status: 204, description: 'Deleted.' },
      errors: [{ code: 'not_found', description: 'No such subscription.' }],
    }),
    handle: answerNothing,
  });
  const document = documentOf([routes[0] as Route, webhooks]);
  assert.deepEqual(operationsOf(document), ['DELETE /webhooks/{webhookId} deleteWebhook', 'GET /pets listPets']);
  const deleted = document.paths['/webhooks/{webhookId}'].delete;
  assert.deepEqual(Object.keys(deleted.responses), ['204', '401', '404', '429', '500', '503']);
  assert.equal(deleted.responses['204'].content, undefined, 'a 204 has no body');
  assert.deepEqual(deleted.tags, ['animals']);
  assert.deepEqual(deleted.security, [{ bearerAuth: [] }]);
  assert.deepEqual(operationsOf(documentOf([])), []);
});

test("each 405's Allow lists the methods the table declares on the path, HEAD wherever GET is", () => {
  const router = new Router<Route>();
  for (const route of routes) router.add(route.method, route.path, route);
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes) methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method]);
  for (const [path, methods] of methodsByPath) {
    const expected = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].sort().join(', ');
    const match = router.find('PUT', path.replaceAll(/\{[^}]+\}/g, '7'));
    assert.equal(match.kind, 'method_not_allowed', path);
    assert.equal(match.kind === 'method_not_allowed' && match.allow, expected, path);
  }
});

test('parameters, bodies and answers come from the TypeBox schemas, and a component is a $ref', () => {
  const document = documentOf(routes);
  const listPets = document.paths['/pets'].get;
  assert.deepEqual(
    listPets.parameters.map((parameter: Json) => [parameter.name, parameter.in, parameter.required]),
    [
      ['limit', 'query', false],
      ['status', 'query', false],
      ['cursor', 'query', false],
    ],
  );
  assert.deepEqual(listPets.parameters[1].schema, { $ref: '#/components/schemas/PetStatus' });
  const createPet = document.paths['/pets'].post;
  assert.deepEqual(createPet.parameters, [{ $ref: '#/components/parameters/IdempotencyKey' }]);
  assert.deepEqual(createPet.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/NewPet' });
  const updateOrder = document.paths['/store/orders/{orderId}'].patch;
  assert.deepEqual(Object.keys(updateOrder.requestBody.content), ['application/json', 'application/merge-patch+json']);
  const patchRoute = routes.find((route) => route.operationId === 'updateOrder');
  assert.deepEqual(patchRoute?.bodyMediaTypes, ['application/json', 'application/merge-patch+json']);
  assert.equal(routes.find((route) => route.operationId === 'placeOrder')?.acceptsIdempotencyKey, true);
  assert.equal(routes.find((route) => route.operationId === 'getPet')?.bodyMediaTypes, undefined);
});

test('a deprecated route documents its headers on every answer it gives, and its 410', () => {
  const getPet = documentOf(routes).paths['/pets/{petId}'].get;
  assert.equal(getPet.deprecated, true);
  for (const status of ['200', '400', '404', '410']) {
    assert.deepEqual(
      Object.keys(getPet.responses[status].headers).slice(-3),
      ['Deprecation', 'Sunset', 'Link'],
      status,
    );
  }
  assert.equal(getPet.responses['410'].content['application/json'].example.code, 'gone');
});

test('a route without its description does not type-check, and is refused when built', () => {
  assert.throws(
    () =>
      // @ts-expect-error: `operation` is required; a route cannot exist without its OpenAPI description.
      defineRoute({ method: 'GET', path: '/undescribed', handle: answerNothing }),
    (error: unknown) =>
      error instanceof TypeError && /GET \/undescribed has no OpenAPI description/.test(error.message),
  );
});

test('a body that may be left out (read as {}) must have no required member', () => {
  const optionalNewPet = (): Route =>
    defineRoute({
      method: 'POST',
      path: '/things',
      operation: described('makeThing', {
        requestBody: { schema: NewPet, mediaTypes: { 'application/json': { example: {} } }, optional: true },
      }),
      handle: answerNothing,
    });
  assert.throws(optionalNewPet, /POST \/things has an optional body with required members/);
  const redeliver = routes.find((route) => route.operationId === 'redeliverEvent');
  assert.equal(redeliver?.bodyOptional, true);
  assert.equal(routes.find((route) => route.operationId === 'createPet')?.bodyOptional, false);
});

test("a description whose path parameters are not the path's, or that says a status twice, is refused at build", () => {
  const wrongParameter = defineRoute({
    method: 'GET',
    path: '/things/{thingId}',
    operation: described('getThing'),
    handle: answerNothing,
  });
  assert.throws(() => documentOf([wrongParameter]), /getThing: path parameters \[\] do not match/);
  const twice = defineRoute({
    method: 'GET',
    path: '/things',
    operation: described('listThings', {
      errors: [
        { code: 'invalid_query', description: 'One.' },
        { code: 'invalid_body', description: 'Two.' },
      ],
    }),
    handle: answerNothing,
  });
  assert.throws(() => documentOf([twice]), /listThings describes status 400 twice/);
});

test('webhooks are an optional part: none by default, each under `webhooks` as the receiver is to answer it', async () => {
  assert.equal(documentOf(routes).webhooks, undefined);
  const document = documentOf(routes, [
    {
      name: 'pet.created',
      operation: described('petCreated', {
        requestBody: {
          schema: Pet,
          mediaTypes: { 'application/json': { example: { id: 1, name: 'Rex', categoryId: 3, status: 'available' } } },
        },
      }),
    },
  ]);
  const sent = document.webhooks['pet.created'].post;
  assert.equal(sent.operationId, 'petCreated');
  // An empty list, since an operation without one inherits the document's bearer requirement.
  assert.deepEqual(sent.security, [], 'the receiver is not asked for an API key');
  assert.deepEqual(Object.keys(sent.responses), ['200']);
  assert.deepEqual(sent.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/Pet' });
  const result = await new Validator().validate(document);
  assert.deepEqual(result.errors, undefined);
});

test('listPets and getPet answer at once on an in-memory store: no promise, so no turn of the microtask queue', async () => {
  const input = (params: Record<string, string>, query: string): RouteInput => ({
    params,
    query,
    body: undefined,
    key: dispatchKeyRecord(),
    arrival: undefined,
  });
  const createPet = routes.find((route) => route.operationId === 'createPet') as Route;
  await createPet.handle({ ...input({}, ''), body: { name: 'Rex', categoryId: 3 } });
  const listed = routes.find((route) => route.operationId === 'listPets')?.handle(input({}, 'limit=1'));
  assert.ok(listed !== undefined && !isPending(listed));
  assert.equal(listed.status, 200);
  const read = routes.find((route) => route.operationId === 'getPet')?.handle(input({ petId: '1' }, ''));
  assert.ok(read !== undefined && !isPending(read));
  assert.equal(JSON.parse(read.body).name, 'Rex');
});
