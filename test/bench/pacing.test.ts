// Fixed-rate pacing: intended send times and latencies measured from them (no coordinated omission).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { halfOfPeakRate, latencyFromIntendedMs, RateSchedule } from '../../bench/pacing.js';

test('request i is due at start + i / rate, without drift over a million requests', () => {
  const schedule = new RateSchedule(3, 1000);
  assert.equal(schedule.intendedMs(0), 1000);
  assert.equal(schedule.intendedMs(3), 2000);
  assert.ok(Math.abs(schedule.intendedMs(1_000_000) - (1000 + 1_000_000_000 / 3)) < 1e-3);
});

test('a sender waits until its request is due, and not at all when late', () => {
  const schedule = new RateSchedule(100, 0);
  assert.equal(schedule.waitMs(5, 20), 30);
  assert.equal(schedule.waitMs(5, 50), 0);
  assert.equal(schedule.waitMs(5, 80), 0);
});

test('a run of 1 s at 1,000 requests/s schedules 1,000 requests, at 2.5/s over 1 s three', () => {
  assert.equal(new RateSchedule(1000, 0).countWithin(1000), 1000);
  assert.equal(new RateSchedule(2.5, 0).countWithin(1000), 3);
  assert.equal(new RateSchedule(10, 0).countWithin(0), 0);
});

test('requests due by a time: the first at the start, one more per interval', () => {
  const schedule = new RateSchedule(10, 500);
  assert.equal(schedule.dueBy(499), 0);
  assert.equal(schedule.dueBy(500), 1);
  assert.equal(schedule.dueBy(599), 1);
  assert.equal(schedule.dueBy(600), 2);
});

test('a stall shows on every request due during it, not just the one in flight', () => {
  // At 1,000/s the server stalls from 0 to 1,000 ms and then answers everything at once at 1,000 ms.
  const schedule = new RateSchedule(1000, 0);
  const latencies = Array.from({ length: 1000 }, (_, index) => latencyFromIntendedMs(schedule.intendedMs(index), 1000));
  assert.equal(latencies[0], 1000);
  assert.equal(latencies[500], 500);
  // Half the requests waited at least 500 ms: the median shows the stall.
  assert.ok(latencies.sort((a, b) => a - b)[500]! >= 500);
});

test('a rate must be positive; half of a peak is at least 1 request/s', () => {
  assert.throws(() => new RateSchedule(0, 0), RangeError);
  assert.throws(() => new RateSchedule(Number.NaN, 0), RangeError);
  assert.equal(halfOfPeakRate(10_001), 5000);
  assert.equal(halfOfPeakRate(1), 1);
});
