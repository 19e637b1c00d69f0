// CORS is off by default; an allow-list answers preflights and exposes the useful headers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CorsPolicy } from '../../src/http/cors.js';
import { call, startServer } from '../helpers/server.js';

const ORIGIN = 'https://app.example.com';

test('without configured origins no CORS header is sent and OPTIONS is an ordinary request', async () => {
  const server = await startServer();
  try {
    const reply = await call(server, 'GET', '/v1/pets', { headers: { origin: ORIGIN } });
    assert.equal(reply.headers['access-control-allow-origin'], undefined);
    const preflight = await call(server, 'OPTIONS', '/v1/pets', {
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST', authorization: '' },
    });
    assert.equal(preflight.status, 401);
  } finally {
    await server.close();
  }
});

test('an allowed origin gets its preflight answered and the rate-limit and paging headers exposed', async () => {
  const server = await startServer({ corsOrigins: [ORIGIN] });
  try {
    const preflight = await call(server, 'OPTIONS', '/v1/pets', {
      headers: {
        origin: ORIGIN,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
        authorization: '',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], ORIGIN);
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
    assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(preflight.headers['access-control-allow-headers']), /Idempotency-Key/);
    const reply = await call(server, 'GET', '/v1/pets', { headers: { origin: ORIGIN } });
    assert.equal(reply.headers['access-control-allow-origin'], ORIGIN);
    for (const name of ['X-RateLimit-Remaining', 'Retry-After', 'Link', 'X-Total-Count', 'X-Request-Id']) {
      assert.match(String(reply.headers['access-control-expose-headers']), new RegExp(name));
    }
    assert.equal(reply.headers.vary, 'Origin');
    const other = await call(server, 'GET', '/v1/pets', { headers: { origin: 'https://evil.example' } });
    assert.equal(other.headers['access-control-allow-origin'], undefined);
    const otherPreflight = await call(server, 'OPTIONS', '/v1/pets', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET', authorization: '' },
    });
    assert.equal(otherPreflight.status, 401, 'a preflight from another origin is not answered as one');
  } finally {
    await server.close();
  }
});

test('a malformed origin in the allow-list is a programmer error', () => {
  assert.throws(() => new CorsPolicy(['app.example.com']), TypeError);
  assert.throws(() => new CorsPolicy(['https://app.example.com/path']), TypeError);
});
