// Reading a receiver's Retry-After (RFC 9110 §10.2.3): delay-seconds, the three HTTP-date forms of
// §5.6.7, a past date as no wait, and anything else as no value at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseHttpDateMs, parseRetryAfterMs } from '../../src/webhooks/retry-after.js';

// RFC 9110 §5.6.7's example instant, Sunday 6 November 1994 08:49:37 UTC.
const EXAMPLE_MS = Date.UTC(1994, 10, 6, 8, 49, 37);
const NOW_MS = EXAMPLE_MS - 60_000;

test('delay-seconds is a number of seconds, read as milliseconds', () => {
  assert.equal(parseRetryAfterMs('120', NOW_MS), 120_000);
  assert.equal(parseRetryAfterMs('0', NOW_MS), 0);
  assert.equal(parseRetryAfterMs(' 5 ', NOW_MS), 5_000);
  assert.equal(parseRetryAfterMs('007', NOW_MS), 7_000);
});

test('an absurdly long delay stays an exact number of milliseconds', () => {
  assert.equal(parseRetryAfterMs('9'.repeat(400), NOW_MS), Number.MAX_SAFE_INTEGER);
});

test('a negative delay means no wait', () => {
  assert.equal(parseRetryAfterMs('-5', NOW_MS), 0);
});

test('the three HTTP-date forms name the same instant', () => {
  for (const date of ['Sun, 06 Nov 1994 08:49:37 GMT', 'Sunday, 06-Nov-94 08:49:37 GMT', 'Sun Nov  6 08:49:37 1994']) {
    assert.equal(parseHttpDateMs(date, NOW_MS), EXAMPLE_MS, date);
    assert.equal(parseRetryAfterMs(date, NOW_MS), 60_000, date);
  }
});

test('an HTTP-date is read as UTC whatever the host time zone (asctime says no zone)', () => {
  assert.equal(parseHttpDateMs('Thu Feb 29 23:59:59 2024', 0), Date.UTC(2024, 1, 29, 23, 59, 59));
});

test('a date in the past means no wait', () => {
  assert.equal(parseRetryAfterMs('Sun, 06 Nov 1994 08:49:37 GMT', EXAMPLE_MS + 3_600_000), 0);
});

test('an RFC 850 two-digit year more than 50 years ahead is the most recent past year with those digits', () => {
  const in2030 = Date.UTC(2030, 0, 1);
  assert.equal(parseHttpDateMs('Monday, 01-Jan-80 00:00:00 GMT', in2030), Date.UTC(2080, 0, 1));
  assert.equal(parseHttpDateMs('Tuesday, 01-Jan-81 00:00:00 GMT', in2030), Date.UTC(1981, 0, 1));
  assert.equal(parseHttpDateMs('Wednesday, 01-Jan-31 00:00:00 GMT', in2030), Date.UTC(2031, 0, 1));
});

test('anything that is neither delay-seconds nor an HTTP-date is no value', () => {
  for (const value of [
    undefined,
    null,
    '',
    '1.5',
    '1e3',
    '+5',
    'soon',
    'Dec 25 2030',
    '1 2 3',
    '2030-01-01T00:00:00Z',
    'Sun, 06 Nov 1994 08:49:37 UTC',
    'Sun, 06 Nov 1994 08:49:37 +0000',
    'sun, 06 nov 1994 08:49:37 gmt',
    'Sun, 6 Nov 1994 08:49:37 GMT',
    'Sun, 31 Feb 1994 08:49:37 GMT',
    'Sun, 06 Nov 1994 24:00:00 GMT',
    'Sun, 06 Nov 1994 08:60:00 GMT',
    'Sun Nov 06 08:49:37 1994 GMT',
  ]) {
    assert.equal(parseRetryAfterMs(value, NOW_MS), undefined, String(value));
  }
});
