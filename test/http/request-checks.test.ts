// The checks of a request's head, alone: one Host on HTTP/1.1 (RFC 9112 §3.2), a target within its
// limit, and the one rule, in one wording, for a field that must be sent once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { assertSentOnce, requestFault } from '../../src/http/request-checks.js';
import { fakeRequest } from '../helpers/fake-http.js';

test('an HTTP/1.1 request with no Host or two is a 400 that closes the connection; HTTP/1.0 needs none', () => {
  for (const headers of [{}, { host: ['a', 'b'] }] as Array<Record<string, string[]>>) {
    const fault = requestFault(fakeRequest({ headers }), 8192, 16384);
    assert.equal(fault?.loggedPath, '(bad host)');
    assert.equal(fault.error.code, 'bad_request');
    assert.equal(fault.error.message, 'An HTTP/1.1 request must carry exactly one Host header (RFC 9112 section 3.2)');
    assert.deepEqual(fault.error.headers, { connection: 'close' });
  }
  assert.equal(requestFault(fakeRequest({ headers: {}, httpVersion: '1.0' }), 8192, 16384), undefined);
  assert.equal(requestFault(fakeRequest({ headers: { Host: 'x' } }), 8192, 16384), undefined, 'names in any case');
});

test('a request target longer than the limit is 414; one at the limit passes', () => {
  const fault = requestFault(fakeRequest({ url: `/${'a'.repeat(100)}` }), 100, 16384);
  assert.equal(fault?.loggedPath, '(too long)');
  assert.equal(fault.error.code, 'uri_too_long');
  assert.equal(fault.error.message, 'The request target is longer than 100 bytes');
  assert.equal(requestFault(fakeRequest({ url: `/${'a'.repeat(99)}` }), 100, 16384), undefined);
});

test('a field sent more than once is 400 invalid_header, worded alike whichever field it is', () => {
  for (const name of ['Content-Type', 'Idempotency-Key']) {
    const req = fakeRequest({ headers: { host: 'x', [name.toLowerCase()]: ['a', 'b'] } });
    assert.throws(
      () => assertSentOnce(req, name),
      (error: unknown) =>
        error instanceof ApiError &&
        error.code === 'invalid_header' &&
        error.message === `Header "${name}" must be sent once` &&
        JSON.stringify(error.details) ===
          JSON.stringify([{ path: name, message: `"${name}" was sent more than once` }]),
    );
    assert.doesNotThrow(() => assertSentOnce(fakeRequest({ headers: { [name]: 'a' } }), name));
  }
});
