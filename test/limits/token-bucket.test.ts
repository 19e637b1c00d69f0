// The token bucket on its own: lazy continuous refill, clamping, and float rounding that never
// refuses a request that is due.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  fullBucket,
  hasToken,
  isFull,
  msUntilFull,
  msUntilToken,
  refill,
  takeToken,
  wholeTokens,
} from '../../src/limits/token-bucket.js';

test('a bucket refills continuously in proportion to the time elapsed', () => {
  const bucket = { tokens: 0, atMs: 0 };
  refill(bucket, 60, 60_000, 500);
  assert.equal(bucket.tokens, 0.5);
  assert.equal(wholeTokens(bucket), 0);
  assert.equal(hasToken(bucket), false);
  assert.equal(msUntilToken(bucket, 60, 60_000), 500);
  refill(bucket, 60, 60_000, 1_000);
  assert.equal(bucket.tokens, 1);
  assert.equal(hasToken(bucket), true);
  assert.equal(msUntilToken(bucket, 60, 60_000), 0);
});

test('a bucket never holds more than its capacity', () => {
  const bucket = fullBucket(60, 0);
  refill(bucket, 60, 60_000, 10 * 86_400_000);
  assert.equal(bucket.tokens, 60);
  assert.equal(isFull(bucket, 60), true);
  assert.equal(msUntilFull(bucket, 60, 60_000), 0);
});

test('a clock going back earns nothing and does not credit the same interval twice', () => {
  const bucket = { tokens: 0, atMs: 1_000 };
  refill(bucket, 60, 60_000, 0);
  assert.equal(bucket.tokens, 0);
  assert.equal(bucket.atMs, 1_000);
  refill(bucket, 60, 60_000, 2_000);
  assert.equal(bucket.tokens, 1);
});

test('taking a token never leaves a negative count', () => {
  const bucket = { tokens: 0.25, atMs: 0 };
  takeToken(bucket);
  assert.equal(bucket.tokens, 0);
  assert.equal(wholeTokens(bucket), 0);
});

test('refilling in many small steps still yields the token that is due (float rounding)', () => {
  const bucket = { tokens: 0, atMs: 0 };
  for (let ms = 1; ms <= 1_000; ms += 1) refill(bucket, 60, 60_000, ms);
  assert.equal(hasToken(bucket), true);
  assert.equal(wholeTokens(bucket), 1);
  const day = { tokens: 0, atMs: 0 };
  for (let ms = 7; ms <= 86_400; ms += 7) refill(day, 1_000, 86_400_000, ms);
  refill(day, 1_000, 86_400_000, 86_400);
  assert.equal(hasToken(day), true);
});

test('a smaller capacity clamps the tokens on the next refill (a plan downgrade)', () => {
  const bucket = fullBucket(300, 0);
  refill(bucket, 60, 60_000, 0);
  assert.equal(bucket.tokens, 60);
});
