// Routing, alone: which paths are the API's, the lookup that sets a deprecated route's fields before
// anything is refused, and the 404, 405 and 410 it comes to once the request is admitted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import { ResponseHeaders } from '../../src/http/response-headers.js';
import type { Route } from '../../src/http/route.js';
import { Router } from '../../src/http/router.js';
import { Routing } from '../../src/http/routing.js';
import { testRoute } from '../helpers/routes.js';

const SUNSET_MS = Date.UTC(2030, 11, 5);
const answer = () => ({ status: 200, body: '{}' });
const list = testRoute({ method: 'GET', path: '/pets', operationId: 'listPets', handle: answer });
const old = testRoute({
  method: 'GET',
  path: '/pets/{petId}',
  operationId: 'getPet',
  deprecation: { headers: { sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' }, sunsetMs: SUNSET_MS, replacement: 'listPets' },
  handle: answer,
});

function routing(nowMs = SUNSET_MS - 1): Routing {
  const router = new Router<Route>().add('GET', list.path, list).add('GET', old.path, old);
  return new Routing(router, '/v1', new ManualClock(nowMs));
}

const refusedWith = (code: string, message: string) => (error: unknown) =>
  error instanceof ApiError && error.code === code && error.message === message;

test('the API serves its base path and what is below it, nothing that only starts alike', () => {
  const api = routing();
  for (const path of ['/v1', '/v1/', '/v1/pets']) assert.equal(api.serves(path), true, path);
  for (const path of ['/v10', '/v1pets', '/', '/healthz']) assert.equal(api.serves(path), false, path);
});

test('a route is found with its raw parameters; a deprecated one sets its fields at once, whatever comes next', () => {
  const api = routing();
  const headers = new ResponseHeaders('r');
  const match = api.find('GET', '/v1/pets/%31', headers);
  assert.deepEqual(api.resolve(match, 'GET', '/v1/pets/%31'), { kind: 'found', route: old, params: { petId: '%31' } });
  assert.deepEqual(headers.list, ['x-request-id', 'r', 'sunset', 'Thu, 05 Dec 2030 00:00:00 GMT']);
  const refused = new ResponseHeaders('r');
  api.find('DELETE', '/v1/pets/1', refused);
  assert.equal(refused.list.length, 4, 'a 405 of a deprecated path carries them too');
});

test('no route is 404 naming the document; another method 405 with Allow; past the sunset 410 naming the replacement', () => {
  const api = routing();
  const headers = new ResponseHeaders('r');
  assert.throws(
    () => api.resolve(api.find('GET', '/v1/nothing', headers), 'GET', '/v1/nothing'),
    refusedWith('not_found', 'No route matches GET /v1/nothing; see /v1/openapi.json'),
  );
  assert.throws(
    () => api.resolve(api.find('POST', '/v1/pets/1', headers), 'POST', '/v1/pets/1'),
    (error: unknown) =>
      refusedWith('method_not_allowed', 'Method POST is not allowed on /v1/pets/1; allowed: GET, HEAD')(error) &&
      (error as ApiError).headers?.allow === 'GET, HEAD',
  );
  const late = routing(SUNSET_MS);
  assert.throws(
    () => late.resolve(late.find('GET', '/v1/pets/1', headers), 'GET', '/v1/pets/1'),
    refusedWith('gone', 'GET /v1/pets/{petId} was removed on 2030-12-05; use listPets instead'),
  );
  assert.equal(late.resolve(late.find('GET', '/v1/pets', headers), 'GET', '/v1/pets').route, list);
});
