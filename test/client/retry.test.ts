// The retry arithmetic as a specification: full-jitter backoff, Retry-After, the attempt limit and the deadline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  backoffDelayMs,
  DEFAULT_RETRY_POLICY,
  nextRetryDelayMs,
  parseRetryAfterMs,
  type RetryPolicy,
} from '../../src/client/index.js';
import { resolveRetryPolicy } from '../../src/client/retry.js';

const POLICY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 100, maxDelayMs: 1000, deadlineMs: 10_000 };
const always = (value: number) => () => value;

test('the backoff ceiling doubles with each retry and stops at maxDelayMs', () => {
  // random() just below 1 shows the ceiling of each window.
  const ceilings = [0, 1, 2, 3, 4, 5, 60].map((retry) => backoffDelayMs(retry, POLICY, always(0.999_999)));
  assert.deepEqual(ceilings, [99, 199, 399, 799, 999, 999, 999]);
});

test('full jitter draws uniformly from zero to the ceiling', () => {
  assert.equal(backoffDelayMs(3, POLICY, always(0)), 0);
  assert.equal(backoffDelayMs(3, POLICY, always(0.5)), 400);
  assert.equal(backoffDelayMs(3, POLICY, always(0.25)), 200);
});

test('a huge retry number neither overflows nor exceeds maxDelayMs', () => {
  assert.equal(backoffDelayMs(5000, POLICY, always(0.5)), 500);
});

test('Retry-After in delay-seconds is read as milliseconds', () => {
  assert.equal(parseRetryAfterMs('1', 0), 1000);
  assert.equal(parseRetryAfterMs(' 120 ', 0), 120_000);
  assert.equal(parseRetryAfterMs('0', 0), 0);
});

test('Retry-After as an HTTP-date counts from the clock, and a past date means now', () => {
  const now = Date.parse('Thu, 05 Dec 2030 00:00:00 GMT');
  assert.equal(parseRetryAfterMs('Thu, 05 Dec 2030 00:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfterMs('Wed, 04 Dec 2030 23:00:00 GMT', now), 0);
});

test('an unreadable or absent Retry-After is ignored', () => {
  for (const value of [undefined, '', '1.5', '-1', 'soon', '12:00'])
    assert.equal(parseRetryAfterMs(value, 0), undefined, String(value));
});

test('the wait is the jittered backoff when the answer had no Retry-After', () => {
  assert.equal(nextRetryDelayMs({ attempts: 1, elapsedMs: 0, retryAfterMs: undefined }, POLICY, always(0.5)), 50);
  assert.equal(nextRetryDelayMs({ attempts: 3, elapsedMs: 0, retryAfterMs: undefined }, POLICY, always(0.5)), 200);
});

test('the wait is never shorter than Retry-After, and a longer backoff wins over a short Retry-After', () => {
  assert.equal(nextRetryDelayMs({ attempts: 1, elapsedMs: 0, retryAfterMs: 1000 }, POLICY, always(0.5)), 1000);
  assert.equal(nextRetryDelayMs({ attempts: 5, elapsedMs: 0, retryAfterMs: 100 }, POLICY, always(0.9)), 900);
  // A Retry-After past maxDelayMs is still honoured: maxDelayMs bounds only the client's own backoff.
  assert.equal(nextRetryDelayMs({ attempts: 1, elapsedMs: 0, retryAfterMs: 5000 }, POLICY, always(0.5)), 5000);
});

test('the client gives up once maxAttempts requests were sent', () => {
  assert.equal(nextRetryDelayMs({ attempts: 5, elapsedMs: 0, retryAfterMs: undefined }, POLICY, always(0.5)), 500);
  assert.equal(
    nextRetryDelayMs({ attempts: 6, elapsedMs: 0, retryAfterMs: undefined }, POLICY, always(0.5)),
    undefined,
  );
});

test('the client gives up rather than wait up to or past the deadline', () => {
  assert.equal(nextRetryDelayMs({ attempts: 1, elapsedMs: 8999, retryAfterMs: 1000 }, POLICY, always(0)), 1000);
  assert.equal(nextRetryDelayMs({ attempts: 1, elapsedMs: 9000, retryAfterMs: 1000 }, POLICY, always(0)), undefined);
  assert.equal(nextRetryDelayMs({ attempts: 1, elapsedMs: 0, retryAfterMs: 900_000 }, POLICY, always(0)), undefined);
});

test('the default policy: five attempts within a minute', () => {
  assert.deepEqual(
    { ...DEFAULT_RETRY_POLICY },
    { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 20_000, deadlineMs: 60_000 },
  );
  assert.throws(() => {
    (DEFAULT_RETRY_POLICY as RetryPolicy).maxAttempts = 1;
  }, TypeError);
});

test('retry options are merged with the defaults; false sends each request once', () => {
  assert.deepEqual(resolveRetryPolicy({ deadlineMs: 5000 }), { ...DEFAULT_RETRY_POLICY, deadlineMs: 5000 });
  assert.equal(resolveRetryPolicy(false).maxAttempts, 1);
  assert.deepEqual(resolveRetryPolicy(undefined), { ...DEFAULT_RETRY_POLICY });
});

test('a bad retry option is a TypeError naming it', () => {
  assert.throws(() => resolveRetryPolicy({ maxAttempts: 0 }), /retry\.maxAttempts/);
  assert.throws(() => resolveRetryPolicy({ maxAttempts: 1.5 }), /retry\.maxAttempts/);
  assert.throws(() => resolveRetryPolicy({ baseDelayMs: -1 }), /retry\.baseDelayMs/);
  assert.throws(() => resolveRetryPolicy({ maxDelayMs: Number.NaN }), /retry\.maxDelayMs/);
  assert.throws(() => resolveRetryPolicy({ deadlineMs: 0 }), /retry\.deadlineMs/);
});
