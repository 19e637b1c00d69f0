// A routed request's input, alone: the 100 Continue sent when the body is wanted (once, and only for a
// request that expects one and whose 100 was left to the service), a JSON body parsed, a GET's body
// left unread, and nothing to wait for when there is nothing to read.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { awaitContinue, readInput } from '../../src/http/request-input.js';
import { fakeRequest, RecordedResponse } from '../helpers/fake-http.js';
import { testRoute } from '../helpers/routes.js';

const handle = () => ({ status: 200, body: '{}' });
const create = testRoute({
  method: 'POST',
  path: '/pets',
  operationId: 'createPet',
  bodyMediaTypes: ['application/json'],
  handle,
});
const read = testRoute({ method: 'GET', path: '/pets', operationId: 'listPets', handle });
const remove = testRoute({ method: 'DELETE', path: '/pets/{id}', operationId: 'deletePet', handle });

const json = (body: string) =>
  fakeRequest({
    method: 'POST',
    headers: { host: 'x', 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    body,
  });

test('a JSON body is read and parsed; 100 Continue goes out first, once, when the service was left to send it', async () => {
  const recorded = new RecordedResponse();
  const req = json('{"name":"Rex"}');
  awaitContinue(req);
  assert.deepEqual(await readInput(req, recorded.res, create, 1024), { name: 'Rex' });
  assert.equal(recorded.continues, 1);
  const other = new RecordedResponse();
  await readInput(json('{}'), other.res, create, 1024);
  assert.equal(other.continues, 0, 'Node sent it already, or the client did not ask');
});

test('a GET has nothing to wait for: its body is ignored, headers and all', () => {
  const req = fakeRequest({ headers: { host: 'x', 'content-type': 'text/plain', 'content-length': '3' }, body: 'abc' });
  assert.equal(readInput(req, new RecordedResponse().res, read, 1024), undefined);
});

test('a route that takes no body still refuses one over the limit or of another type', async () => {
  const req = fakeRequest({
    method: 'DELETE',
    headers: { host: 'x', 'content-type': 'text/plain', 'content-length': '3' },
    body: 'abc',
  });
  await assert.rejects(
    async () => readInput(req, new RecordedResponse().res, remove, 1024),
    (error: unknown) => error instanceof ApiError && error.code === 'unsupported_media_type',
  );
  assert.equal(await readInput(fakeRequest({ method: 'DELETE' }), new RecordedResponse().res, remove, 1024), undefined);
});
