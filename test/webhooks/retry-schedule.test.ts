// The webhook retry schedule as a specification: the default waits, ±20 % jitter, the end of the
// schedule, Retry-After within [wait, 2 × wait], and when a failing subscription is disabled.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DEFAULT_DISABLE_AFTER_MS,
  DEFAULT_RETRY_WAITS_MS,
  honoursRetryAfter,
  jitteredWaitMs,
  mustDisableSubscription,
  nextAttemptDelayMs,
} from '../../src/webhooks/retry-schedule.js';

const SECOND_MS = 1000;
const MINUTE_MS = 60 * SECOND_MS;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const always = (value: number) => () => value;
const middle = always(0.5);

test('the default waits are 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h', () => {
  assert.deepEqual(DEFAULT_RETRY_WAITS_MS, [
    5 * SECOND_MS,
    5 * MINUTE_MS,
    30 * MINUTE_MS,
    2 * HOUR_MS,
    5 * HOUR_MS,
    10 * HOUR_MS,
    10 * HOUR_MS,
  ]);
  assert.ok(Object.isFrozen(DEFAULT_RETRY_WAITS_MS));
});

test('with a jitter draw of 0.5 each failed attempt waits exactly its scheduled time', () => {
  const waits = [1, 2, 3, 4, 5, 6, 7].map((attemptNumber) => nextAttemptDelayMs({ attemptNumber, random: middle }));
  assert.deepEqual(waits, DEFAULT_RETRY_WAITS_MS);
});

test('after the eighth attempt (the seventh retry) nothing more is tried', () => {
  assert.equal(nextAttemptDelayMs({ attemptNumber: 8, random: middle }), undefined);
  assert.equal(nextAttemptDelayMs({ attemptNumber: 100, random: middle }), undefined);
});

test('jitter moves a wait by up to 20 % either way, uniformly with the draw', () => {
  assert.equal(jitteredWaitMs(10_000, always(0)), 8_000);
  assert.equal(jitteredWaitMs(10_000, always(0.25)), 9_000);
  assert.equal(jitteredWaitMs(10_000, always(0.75)), 11_000);
  // random() stays below 1, so the wait stays just below +20 % (rounded to the millisecond).
  assert.equal(jitteredWaitMs(10_000, always(0.999_999)), 12_000);
  assert.equal(nextAttemptDelayMs({ attemptNumber: 1, random: always(0) }), 4_000);
  assert.equal(nextAttemptDelayMs({ attemptNumber: 7, random: always(0) }), 8 * HOUR_MS);
});

test('waits are whole milliseconds', () => {
  assert.equal(jitteredWaitMs(5, always(0.1)), 4); // 5 × 0.84 = 4.2
  assert.ok(Number.isInteger(nextAttemptDelayMs({ attemptNumber: 3, random: always(0.123_456_789) })));
});

test('a configured list of waits replaces the default, and its length is the number of retries', () => {
  const waitsMs = [100, 200];
  assert.equal(nextAttemptDelayMs({ attemptNumber: 1, waitsMs, random: middle }), 100);
  assert.equal(nextAttemptDelayMs({ attemptNumber: 2, waitsMs, random: middle }), 200);
  assert.equal(nextAttemptDelayMs({ attemptNumber: 3, waitsMs, random: middle }), undefined);
  assert.equal(nextAttemptDelayMs({ attemptNumber: 1, waitsMs: [], random: middle }), undefined);
});

test('a Retry-After longer than the wait is honoured, up to twice the wait', () => {
  // Third attempt failed: 30 min scheduled.
  const at = (retryAfterMs: number, random = middle) => nextAttemptDelayMs({ attemptNumber: 3, random, retryAfterMs });
  assert.equal(at(45 * MINUTE_MS), 45 * MINUTE_MS);
  assert.equal(at(60 * MINUTE_MS), 60 * MINUTE_MS);
  assert.equal(at(61 * MINUTE_MS), 60 * MINUTE_MS);
  assert.equal(at(30 * DAY_MS), 60 * MINUTE_MS);
  // The bounds are the jittered wait's: 24 min here, so at most 48 min.
  assert.equal(at(30 * DAY_MS, always(0)), 48 * MINUTE_MS);
});

test('a Retry-After shorter than the wait, zero or absent, leaves the wait as scheduled', () => {
  for (const retryAfterMs of [0, 1_000, 29 * MINUTE_MS, undefined]) {
    assert.equal(nextAttemptDelayMs({ attemptNumber: 3, random: middle, retryAfterMs }), 30 * MINUTE_MS);
  }
});

test('a Retry-After does not extend the schedule past its last attempt', () => {
  assert.equal(nextAttemptDelayMs({ attemptNumber: 8, random: middle, retryAfterMs: 1_000 }), undefined);
});

test('an attempt number that is not a whole number from 1 is a TypeError', () => {
  for (const attemptNumber of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => nextAttemptDelayMs({ attemptNumber, random: middle }), /attemptNumber/);
  }
});

test('Retry-After counts on 429 and 503 answers only', () => {
  assert.equal(honoursRetryAfter(429), true);
  assert.equal(honoursRetryAfter(503), true);
  for (const status of [200, 301, 400, 410, 500, 502, 504]) assert.equal(honoursRetryAfter(status), false);
});

test('a subscription failing without a success for 5 days is disabled, not a moment before', () => {
  const failedAtMs = Date.UTC(2030, 0, 1);
  assert.equal(DEFAULT_DISABLE_AFTER_MS, 5 * DAY_MS);
  const check = (nowMs: number) => mustDisableSubscription({ firstFailureSinceLastSuccessMs: failedAtMs, nowMs });
  assert.equal(check(failedAtMs), false);
  assert.equal(check(failedAtMs + 5 * DAY_MS - 1), false);
  assert.equal(check(failedAtMs + 5 * DAY_MS), true);
  assert.equal(check(failedAtMs + 30 * DAY_MS), true);
});

test('a subscription with no failure since its last success is never disabled', () => {
  for (const firstFailureSinceLastSuccessMs of [null, undefined]) {
    assert.equal(mustDisableSubscription({ firstFailureSinceLastSuccessMs, nowMs: 100 * DAY_MS }), false);
  }
});

test('the disabling delay can be set', () => {
  const input = { firstFailureSinceLastSuccessMs: 0, nowMs: HOUR_MS };
  assert.equal(mustDisableSubscription({ ...input, disableAfterMs: HOUR_MS + 1 }), false);
  assert.equal(mustDisableSubscription({ ...input, disableAfterMs: HOUR_MS }), true);
});
