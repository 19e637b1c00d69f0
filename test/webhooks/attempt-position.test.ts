// The position an attempts cursor carries (docs/events.md): `time.seq`, or the bare seq of the cursors
// of earlier releases; anything else is not a cursor of this listing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/core/errors.js';
import { attemptPosition } from '../../src/webhooks/webhook-service.js';

test('an attempts cursor carries the time and the seq, or the seq alone of earlier releases', () => {
  assert.deepEqual(attemptPosition('1764150000123.42'), { atMs: 1_764_150_000_123, seq: 42 });
  assert.deepEqual(attemptPosition('0.0'), { atMs: 0, seq: 0 });
  assert.deepEqual(attemptPosition('42'), { atMs: undefined, seq: 42 });
  for (const text of ['', '.42', '42.', '01.2', '1.02', '1.2.3', '-1.2', '1e3.2', '12345678901234567.1'])
    assert.throws(
      () => attemptPosition(text),
      (error: unknown) => error instanceof ApiError && error.code === 'invalid_cursor',
      text,
    );
});
