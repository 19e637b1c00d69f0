// GET /docs over HTTP: the page and its files, no key and no limit, the safety headers, validators, and
// the switch that turns it off.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startServer();
});
after(() => server.close());

const NO_KEY = { headers: { authorization: '' } };

test('GET /docs is an HTML page whose every script and style is a file of this origin, served without a key', async () => {
  const page = await call(server, 'GET', '/docs', NO_KEY);
  assert.equal(page.status, 200);
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  assert.equal(page.headers['x-ratelimit-limit'], undefined, 'no rate-limit headers');
  assert.ok(page.headers['x-request-id']);
  const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
  assert.ok(sources.length >= 4, page.text);
  assert.doesNotMatch(page.text, /<script>|<style>|\son\w+="/, 'no inline script or style in the page');
  for (const source of sources) {
    assert.match(source, /^\/docs\//, 'only this origin');
    const file = await call(server, 'GET', source, NO_KEY);
    assert.equal(file.status, 200, source);
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
  }
  const start = await call(server, 'GET', '/docs/start.js', NO_KEY);
  assert.match(start.text, /fetch\("\/v1\/openapi\.json"\)/, 'the page renders the served document');
  assert.match(start.text, /window\.location\.origin \+ "\/v1"/, 'and calls the API of this server');
  assert.match(start.text, /validatorUrl: null/, 'the document is never sent to a third-party validator');
  assert.match(start.text, /persistAuthorization: false/, 'a pasted key stays in the tab');
});

test('the page is safe to serve in public: a CSP allowing only this origin, nosniff, no referrer', async () => {
  const { headers } = await call(server, 'GET', '/docs', NO_KEY);
  const csp = String(headers['content-security-policy']);
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/, 'scripts from this origin only, none inline');
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /https?:|\*/, 'no other origin');
  assert.equal(headers['referrer-policy'], 'no-referrer');
  assert.equal(headers['x-content-type-options'], 'nosniff');
});

test('every file has an ETag: a reload with If-None-Match costs a 304 without a body', async () => {
  for (const path of ['/docs', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui.css', '/docs/start.js']) {
    const first = await call(server, 'GET', path, NO_KEY);
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[A-Za-z0-9_-]+"$/, path);
    assert.ok(first.headers['cache-control'], path);
    const again = await call(server, 'GET', path, { headers: { authorization: '', 'if-none-match': etag } });
    assert.equal(again.status, 304, path);
    assert.equal(again.text, '');
    assert.equal(again.headers.etag, etag);
    const weak = await call(server, 'GET', path, {
      headers: { authorization: '', 'if-none-match': `"other", W/${etag}` },
    });
    assert.equal(weak.status, 304, 'compared weakly, in a list');
    const changed = await call(server, 'GET', path, { headers: { authorization: '', 'if-none-match': '"other"' } });
    assert.equal(changed.status, 200);
  }
});

test('HEAD answers the headers of GET; other methods are 405 with Allow; near misses are 404', async () => {
  const get = await call(server, 'GET', '/docs', NO_KEY);
  const head = await call(server, 'HEAD', '/docs', NO_KEY);
  assert.equal(head.status, 200);
  assert.equal(head.text, '');
  assert.equal(head.headers['content-length'], get.headers['content-length']);
  assert.equal(head.headers.etag, get.headers.etag);
  for (const method of ['POST', 'PUT', 'DELETE'] as const) {
    const refused = await call(server, method, '/docs', NO_KEY);
    assert.equal(refused.status, 405);
    assert.equal(refused.headers.allow, 'GET, HEAD');
    assert.equal((refused.json as { code: string }).code, 'method_not_allowed');
  }
  for (const path of ['/docs/', '/DOCS', '/docs/index.html', '/docs/../v1/pets', '/v1/docs']) {
    const missing = await call(server, 'GET', path, NO_KEY);
    assert.notEqual(missing.status, 200, path);
  }
});

test('--docs off (library option docs: false) serves no page', async () => {
  const off = await startServer({ docs: false });
  try {
    const page = await call(off, 'GET', '/docs', NO_KEY);
    assert.equal(page.status, 404);
    assert.equal((page.json as { code: string }).code, 'not_found');
    assert.equal((await call(off, 'GET', '/docs/swagger-ui-bundle.js', NO_KEY)).status, 404);
  } finally {
    await off.close();
  }
});
