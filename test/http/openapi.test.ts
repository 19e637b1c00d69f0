// README "How the API behaves": the OpenAPI 3.1 document, checked by a real OpenAPI validator.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { call, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startServer({ publicUrl: 'https://pets.example/v1', stagingUrl: 'https://staging.pets.example/v1' });
});
after(() => server.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the test walks an arbitrary JSON document by path
type Json = Record<string, any>;

async function documentOf(): Promise<Json> {
  const reply = await call(server, 'GET', '/v1/openapi.json', { headers: { authorization: '' } });
  assert.equal(reply.status, 200);
  assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
  return reply.json as Json;
}

test('the document is valid OpenAPI 3.1 according to an OpenAPI schema validator', async () => {
  const validator = new Validator();
  const result = await validator.validate(await documentOf());
  assert.deepEqual(result.errors, undefined);
  assert.equal(result.valid, true);
  assert.equal(validator.version, '3.1');
});

test('it names the three operations, the animals tag, bearer security and the deprecation of getPet', async () => {
  const document = await documentOf();
  assert.equal(document.info.version, '1.0.0');
  const operations = [document.paths['/pets'].get, document.paths['/pets'].post, document.paths['/pets/{petId}'].get];
  assert.deepEqual(
    operations.map((operation) => operation.operationId),
    ['listPets', 'createPet', 'getPet'],
  );
  for (const operation of operations) {
    assert.deepEqual(operation.tags, ['animals']);
    assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
    for (const status of ['401', '429'])
      assert.ok(operation.responses[status], `${operation.operationId} documents ${status}`);
    const success = operation.responses[operation.operationId === 'createPet' ? '201' : '200'];
    for (const header of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
      assert.ok(success.headers[header], header);
  }
  assert.equal(document.components.securitySchemes.bearerAuth.scheme, 'bearer');
  assert.equal(document.paths['/pets/{petId}'].get.deprecated, true);
  assert.ok(document.paths['/pets/{petId}'].get.responses['404']);
  assert.ok(document.paths['/pets'].post.responses['400']);
  assert.deepEqual(
    document.servers.map((entry: Json) => entry.url),
    ['https://pets.example/v1', 'https://staging.pets.example/v1'],
  );
});

test('its schemas are the ones that validate requests', async () => {
  const document = await documentOf();
  const newPet = document.components.schemas.NewPet;
  assert.deepEqual(newPet.required, ['name', 'categoryId']);
  assert.equal(newPet.additionalProperties, false);
  assert.equal(newPet.properties.categoryId.maximum, Number.MAX_SAFE_INTEGER);
  assert.deepEqual(document.components.schemas.PetStatus.enum, ['available', 'pending', 'sold']);
  const limit = document.paths['/pets'].get.parameters.find((parameter: Json) => parameter.name === 'limit');
  assert.deepEqual([limit.schema.minimum, limit.schema.maximum, limit.schema.default], [1, 100, 20]);
});

test('other methods on the document are 405', async () => {
  const reply = await call(server, 'POST', '/v1/openapi.json', { headers: { authorization: '' } });
  assert.equal(reply.status, 405);
  assert.equal(reply.headers.allow, 'GET, HEAD');
});

test('the order operations are documented and marked x-stability: beta', async () => {
  const document = await documentOf();
  const orders = [
    document.paths['/store/orders'].get,
    document.paths['/store/orders'].post,
    document.paths['/store/orders/{orderId}'].get,
    document.paths['/store/orders/{orderId}'].patch,
    document.paths['/store/orders/{orderId}'].delete,
  ];
  assert.deepEqual(
    orders.map((operation) => operation.operationId),
    ['listOrders', 'placeOrder', 'getOrder', 'updateOrder', 'cancelOrder'],
  );
  for (const operation of orders) {
    assert.equal(operation['x-stability'], 'beta');
    assert.deepEqual(operation.tags, ['animals']);
  }
  assert.deepEqual(document.components.schemas.OrderStatus.enum, ['placed', 'delivered', 'cancelled']);
  assert.equal(document.paths['/pets'].post.parameters[0].$ref, '#/components/parameters/IdempotencyKey');
  for (const path of Object.values(document.paths) as Json[]) {
    for (const operation of Object.values(path) as Json[])
      assert.equal(operation.deprecated === true, operation.operationId === 'getPet');
  }
});

test('every event the service sends is under webhooks, the test event included; a body that may be left out is not required', async () => {
  const document = await documentOf();
  assert.deepEqual(Object.keys(document.webhooks).sort(), [
    'order.created',
    'order.updated',
    'pet.created',
    'pet.updated',
    'webhook.test',
  ]);
  const testEvent = document.webhooks['webhook.test'].post;
  const example = testEvent.requestBody.content['application/json'].example;
  assert.deepEqual(Object.keys(example.data), ['webhookId']);
  assert.match(example.data.webhookId, /^wh_/);
  assert.equal(testEvent.requestBody.content['application/json'].schema.properties.type.const, 'webhook.test');
  assert.equal(document.paths['/events/{eventId}/redeliver'].post.requestBody.required, false);
  assert.equal(document.paths['/pets'].post.requestBody.required, true);
});

test('a delivery needs no API key, an Idempotency-Key answer may be a replay, and a bodiless DELETE may be a 400', async () => {
  const document = await documentOf();
  for (const [type, webhook] of Object.entries(document.webhooks as Json))
    assert.deepEqual(webhook.post.security, [], `${type}: signed, not sent with a bearer key`);
  for (const [path, item] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const takesKey = (operation.parameters ?? []).some(
        (parameter: Json) => parameter.$ref === '#/components/parameters/IdempotencyKey',
      );
      const success = Object.entries(operation.responses as Json).find(([status]) => status.startsWith('2'))?.[1];
      assert.equal(Object.hasOwn(success.headers, 'Idempotent-Replayed'), takesKey, `${method} ${path}`);
    }
  }
  assert.ok(document.components.headers['Idempotent-Replayed']);
  assert.ok(Object.hasOwn(document.paths['/webhooks/{webhookId}'].delete.responses, '400'));
});
