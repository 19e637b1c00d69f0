import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Router } from '../../src/http/router.js';

const router = new Router<string>()
  .add('GET', '/pets', 'listPets')
  .add('POST', '/pets', 'createPet')
  .add('GET', '/pets/{petId}', 'getPet')
  .add('GET', '/store/orders/{orderId}', 'getOrder')
  .add('PATCH', '/store/orders/{orderId}', 'updateOrder');

test('a static route is found with no parameters', () => {
  assert.deepEqual(router.find('GET', '/pets'), { kind: 'found', route: 'listPets', params: {} });
});

test('a parameter segment captures the raw, undecoded text', () => {
  assert.deepEqual(router.find('GET', '/pets/%31'), { kind: 'found', route: 'getPet', params: { petId: '%31' } });
  assert.deepEqual(router.find('GET', '/pets/..'), { kind: 'found', route: 'getPet', params: { petId: '..' } });
});

test('HEAD is answered wherever GET is', () => {
  assert.deepEqual(router.find('HEAD', '/pets/7'), { kind: 'found', route: 'getPet', params: { petId: '7' } });
});

test('a known path with an unknown method is 405 with every method of the path in Allow', () => {
  const match = router.find('DELETE', '/pets');
  assert.equal(match.kind, 'method_not_allowed');
  assert.equal(match.kind === 'method_not_allowed' && match.allow, 'GET, HEAD, POST');
  const order = router.find('PUT', '/store/orders/1');
  assert.equal(order.kind === 'method_not_allowed' && order.allow, 'GET, HEAD, PATCH');
});

test('paths match exactly: case, trailing slash, empty and extra segments are not routes', () => {
  for (const path of [
    '/Pets',
    '/pets/',
    '//pets',
    '/pets/1/',
    '/pets/1/x',
    '/store',
    '/store/orders',
    '',
    'pets',
    '/',
  ]) {
    assert.deepEqual(router.find('GET', path), { kind: 'not_found' }, path);
  }
});

test('a route defined twice or with conflicting parameter names is a programmer error', () => {
  assert.throws(() => new Router<string>().add('GET', '/a', 'x').add('GET', '/a', 'y'), TypeError);
  assert.throws(() => new Router<string>().add('GET', '/a/{x}', 'x').add('POST', '/a/{y}', 'y'), TypeError);
  assert.throws(() => new Router<string>().add('GET', 'a', 'x'), TypeError);
});
