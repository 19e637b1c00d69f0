// The bearer credential read by character code: the same tokens as the regular expression of
// RFC 6750 §2.1 that it replaced (scheme in any case, one space or more, a token without whitespace),
// where the token is one that isWellFormedKey can accept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { bearerToken } from '../../src/http/authorization.js';
import { isWellFormedKey } from '../../src/keys/api-key.js';

const BEARER = /^bearer +(\S+)$/i;

/** What authentication looks the key up by: a well-formed token, or nothing. */
function usableToken(read: string | undefined): string | undefined {
  return read !== undefined && isWellFormedKey(read) ? read : undefined;
}

test('the scheme is matched in any case, then one space or more', () => {
  const key = 'abcdefghijklmnop1234';
  for (const header of [`Bearer ${key}`, `bearer ${key}`, `BEARER   ${key}`, `bEaReR ${key}`])
    assert.equal(bearerToken(header), key, header);
  for (const header of [`Bearer\t${key}`, `Bearer${key}`, `Basic ${key}`, 'Bearer ', 'Bearer', '', `Bearerx ${key}`])
    assert.equal(usableToken(bearerToken(header)), undefined, header);
});

test('every header value gives the token the regular expression gives', () => {
  const piece = fc.constantFrom('Bearer', 'bearer', 'BEARER', 'Bear', 'Basic', ' ', '  ', '\t', '\u00a0', '=', '/');
  const token = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{0,24}=?$/);
  const header = fc.array(fc.oneof(piece, token, fc.string()), { maxLength: 5 }).map((parts) => parts.join(''));
  fc.assert(
    fc.property(header, (value) => {
      assert.equal(usableToken(bearerToken(value)), usableToken(BEARER.exec(value)?.[1]), JSON.stringify(value));
    }),
    { numRuns: 5000 },
  );
});
