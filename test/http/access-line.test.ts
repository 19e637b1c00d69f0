// The access line, alone: one entry per answered request with its path as logged, status, duration and
// key id, the same told to metrics; with neither, the clock is not read at all.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessLine } from '../../src/http/access-line.js';
import type { AccessEntry } from '../../src/logging/logger.js';
import { fakeRequest, RecordedResponse } from '../helpers/fake-http.js';

test('an answered request is one access entry and one observation, with its status and duration', () => {
  const entries: AccessEntry[] = [];
  const answered: Array<[string, number]> = [];
  const line = new AccessLine((entry) => entries.push(entry), {
    answered: (operation, status, seconds) => {
      assert.ok(seconds >= 0);
      answered.push([operation, status]);
    },
    refused: () => {},
    shed: () => {},
  });
  const recorded = new RecordedResponse();
  recorded.statusCode = 201;
  const startedMs = line.start();
  assert.ok(startedMs > 0);
  line.record(fakeRequest({ method: 'POST' }), recorded.res, 'req-1', '/v1/pets', startedMs, 'key_1', 'createPet');
  assert.equal(entries.length, 1);
  const { durationMs, ...entry } = entries[0] as AccessEntry;
  assert.deepEqual(entry, { requestId: 'req-1', method: 'POST', path: '/v1/pets', status: 201, keyId: 'key_1' });
  assert.ok(durationMs >= 0 && Number.isInteger(durationMs * 1000), 'whole microseconds');
  assert.deepEqual(answered, [['createPet', 201]]);
});

test('with no access log and no metrics, nothing is timed or told', () => {
  const line = new AccessLine(undefined, undefined);
  assert.equal(line.start(), 0);
  line.record(fakeRequest(), new RecordedResponse().res, 'r', '/', 0, undefined, 'healthz');
});
