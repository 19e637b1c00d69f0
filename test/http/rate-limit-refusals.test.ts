// The wording of the 429s (README "Rate limits"), from the limiter's numbers alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failedAuthRefusal, keyRefusal } from '../../src/http/rate-limit-refusals.js';
import type { Decision } from '../../src/limits/index.js';

const refused = (refusal: Decision['refusal'], retryAfterSeconds: number): Decision => ({
  allowed: false,
  refusal,
  retryAfterSeconds,
  policies: [],
});

test('a key over its limit is told when to retry; a banned key that it is banned and for how long', () => {
  const over = keyRefusal(refused('rate_limited', 3));
  assert.equal(over.code, 'rate_limited');
  assert.equal(over.status, 429);
  assert.equal(over.message, 'Too many requests; retry in 3 s (see Retry-After) and back off exponentially');
  const banned = keyRefusal(refused('temporarily_banned', 900));
  assert.equal(banned.code, 'temporarily_banned');
  assert.equal(
    banned.message,
    'This API key is temporarily banned after repeated requests over its limit; retry in 900 s',
  );
});

test('an address out of failed authentications is told so, and how long to wait, not to check a key it may have right', () => {
  const error = failedAuthRefusal(refused('rate_limited', 2));
  assert.equal(error.code, 'rate_limited');
  assert.equal(
    error.message,
    'Too many failed authentications from this address; wait 2 s (see Retry-After): until then every request from it is refused before its key is looked at',
  );
  assert.doesNotMatch(error.message, /check the key/i);
});
