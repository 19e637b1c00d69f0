// The operational endpoints, alone: /healthz, /readyz, the OpenAPI document and the /docs page answer
// reads without a key; any other method gets the one 405 of a read-only resource, the /docs page's too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DocsPage } from '../../src/http/docs-page.js';
import { OperationalEndpoints, type OperationalOptions, sendNotServed } from '../../src/http/operational.js';
import { refuseUnlessRead } from '../../src/http/read-only.js';
import { ResponseHeaders } from '../../src/http/response-headers.js';
import { fakeRequest, RecordedResponse } from '../helpers/fake-http.js';

function endpoints(overrides: Partial<OperationalOptions> = {}): OperationalEndpoints {
  return new OperationalEndpoints({
    basePath: '/v1',
    openapiJson: '{"openapi":"3.1.0"}',
    docs: undefined,
    isAccepting: () => true,
    checkReady: async () => {},
    ...overrides,
  });
}

/** Answers `method path` and gives the operation label and what was sent. */
async function ask(operational: OperationalEndpoints, method: string, path: string) {
  const recorded = new RecordedResponse();
  const label = await operational.answer(fakeRequest({ method }), recorded.res, new ResponseHeaders('r'), path);
  return { label, recorded };
}

test('/healthz and the OpenAPI document answer 200 to GET and HEAD, under their operation labels', async () => {
  const operational = endpoints();
  for (const method of ['GET', 'HEAD']) {
    const health = await ask(operational, method, '/healthz');
    assert.equal(health.label, 'healthz');
    assert.equal(health.recorded.statusCode, 200);
    assert.equal(health.recorded.body, '{"status":"ok"}');
    const openapi = await ask(operational, method, '/v1/openapi.json');
    assert.equal(openapi.label, 'openapi');
    assert.equal(openapi.recorded.body, '{"openapi":"3.1.0"}');
  }
  assert.equal(
    operational.answer(fakeRequest(), new RecordedResponse().res, new ResponseHeaders('r'), '/v1/pets'),
    undefined,
  );
});

test('while stopping, /healthz and /readyz are 503 and close the connection, so the prober goes elsewhere', async () => {
  const operational = endpoints({ isAccepting: () => false });
  for (const path of ['/healthz', '/readyz']) {
    const { recorded } = await ask(operational, 'GET', path);
    assert.equal(recorded.statusCode, 503);
    assert.equal(recorded.headers.connection, 'close');
    assert.equal((recorded.json as { code: string }).code, 'unavailable');
  }
});

test('/readyz is answered once the backing servers answered, naming the one that cannot take work', async () => {
  const ready = await ask(endpoints(), 'GET', '/readyz');
  assert.equal(ready.label, 'readyz');
  assert.equal(ready.recorded.body, '{"status":"ready"}');
  const failing = endpoints({ checkReady: () => Promise.reject(new Error('the database cannot be reached')) });
  const { recorded } = await ask(failing, 'GET', '/readyz');
  assert.equal(recorded.statusCode, 503);
  assert.equal(
    (recorded.json as { message: string }).message,
    'The service is not ready: the database cannot be reached',
  );
  let asked = false;
  const posted = await ask(endpoints({ checkReady: async () => void (asked = true) }), 'POST', '/readyz');
  assert.equal(posted.recorded.statusCode, 405);
  assert.equal(asked, false, 'a refused method does not ask the backends');
});

test('every read-only resource, the /docs page included, refuses other methods with the same 405', async () => {
  const docs = new DocsPage(
    {
      'swagger-ui-bundle.js': Buffer.from(''),
      'swagger-ui.css': Buffer.from(''),
      'favicon-32x32.png': Buffer.from(''),
    },
    '/v1',
    'test',
  );
  const operational = endpoints({ docs });
  const expected = {
    code: 'method_not_allowed',
    message: 'Method DELETE is not allowed here; use GET or HEAD',
    status: 405,
  };
  for (const path of ['/healthz', '/readyz', '/v1/openapi.json', '/docs', '/docs/start.js']) {
    const { recorded } = await ask(operational, 'DELETE', path);
    assert.equal(recorded.statusCode, 405, path);
    assert.equal(recorded.headers.allow, 'GET, HEAD', path);
    assert.deepEqual(recorded.json, expected, path);
  }
  assert.equal(
    refuseUnlessRead(fakeRequest({ method: 'HEAD' }), new RecordedResponse().res, new ResponseHeaders('r')),
    false,
  );
});

test('a path that is neither operational nor under the base path is a 404 naming where the API lives', () => {
  const recorded = new RecordedResponse();
  sendNotServed(recorded.res, new ResponseHeaders('r'), '/elsewhere', '/v1');
  assert.equal(recorded.statusCode, 404);
  assert.equal(
    (recorded.json as { message: string }).message,
    'Nothing is served at /elsewhere; the API lives under /v1',
  );
});
