// The `since` of POST /webhooks/{id}/recover: an RFC 3339 date-time (§5.6), leap seconds included
// (§5.7), nothing that Date.parse would also guess at.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { validateRecovery } from '../../src/webhooks/validate.js';

const sinceMs = (since: string): number => validateRecovery({ since }).sinceMs;

test('since takes RFC 3339 date-times, in any offset, with or without a fraction', () => {
  assert.equal(sinceMs('2026-11-26T09:00:00Z'), Date.UTC(2026, 10, 26, 9));
  assert.equal(sinceMs('2026-11-26t10:30:00.25+01:30'), Date.UTC(2026, 10, 26, 9, 0, 0, 250));
  assert.equal(sinceMs('2026-11-26T09:00:00.123456789z'), Date.UTC(2026, 10, 26, 9, 0, 0, 123));
});

test('a leap second is taken as the start of the next second, in UTC or in an offset', () => {
  assert.equal(sinceMs('2016-12-31T23:59:60Z'), Date.UTC(2017, 0, 1));
  assert.equal(sinceMs('2016-12-31T23:59:60.5Z'), Date.UTC(2017, 0, 1));
  assert.equal(sinceMs('2017-01-01T00:59:60+01:00'), Date.UTC(2017, 0, 1));
});

test('anything else is 400 invalid_body naming since', () => {
  for (const since of [
    '2026-11-26',
    '2026-11-26T09:00:00',
    '2026-11-26 09:00:00Z',
    '2026-11-26T09:00:00+0530',
    '2026-02-30T09:00:00Z',
    '2026-11-26T24:00:00Z',
    '2026-11-26T09:00:60Z',
    '2026-11-26T09:00:61Z',
    '1795305600',
  ]) {
    assert.throws(
      () => validateRecovery({ since }),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_body' && /since/.test(error.message),
      since,
    );
  }
});
