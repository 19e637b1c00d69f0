// Fixed-rate pacing: intended send times and latencies measured from them (no coordinated omission),
// in the schedule's arithmetic and in a real paced run against a server that stalls.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runLoad } from '../../bench/load.js';
import { halfOfPeakRate, RateSchedule } from '../../bench/pacing.js';
import { startFakeApi } from './fake-api.js';

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

test('latency counts from the intended time when a send is late, from the send when a timer fired early', () => {
  const schedule = new RateSchedule(100, 1000);
  // Request 5 is due at 1,050 ms.
  assert.equal(schedule.latencyStartMs(5, 1050), 1050);
  assert.equal(schedule.latencyStartMs(5, 1350), 1050, 'sent 300 ms late: the 300 ms count');
  assert.equal(schedule.latencyStartMs(5, 1049.5), 1049.5, 'sent half a millisecond early: counted from the send');
});

test('a rate must be positive; half of a peak is at least 1 request/s', () => {
  assert.throws(() => new RateSchedule(0, 0), RangeError);
  assert.throws(() => new RateSchedule(Number.NaN, 0), RangeError);
  assert.equal(halfOfPeakRate(10_001), 5000);
  assert.equal(halfOfPeakRate(1), 1);
});

test('a paced run against a server that stalls counts every request due during the stall with its wait', async () => {
  // 200 requests/s for 600 ms (120 requests) on 4 connections. When the 20th request arrives (at
  // about 100 ms), the server holds every answer until STALL_MS later. Only the 4 requests in flight
  // meanwhile were sent during the stall; the others due in it (about 60) go out late, once it ends.
  // Measured from their intended times they waited up to STALL_MS, from their late sends about
  // nothing (coordinated omission). Lower bounds only: a slow machine only adds latency.
  const STALL_MS = 300;
  const STALL_AT = 20;
  let stallEndMs = 0;
  const api = await startFakeApi((requestNumber, nowMs) => {
    if (requestNumber === STALL_AT) stallEndMs = nowMs + STALL_MS;
    return stallEndMs - nowMs;
  });
  try {
    const result = await runLoad({
      origin: api.origin,
      connections: 4,
      pipelining: 1,
      durationMs: 600,
      amount: undefined,
      ratePerSecond: 200,
      timeoutMs: 5000,
      nextRequest: () => ({ method: 'GET', path: '/v1/pets', headers: {} }),
      expectedStatuses: new Set([200]),
    });
    assert.equal(result.completed, 120, 'every request due within the 600 ms is sent, the late ones too');
    assert.equal(result.errors + result.timeouts + result.unexpected, 0, result.problems.join('; '));
    const summary = result.latency.summary();
    assert.ok(summary.maxMs >= STALL_MS * 0.9, `max ${summary.maxMs} ms`);
    // Requests due in the stall's first 30 ms (6 of them) waited at least 270 ms: p99 is the 2nd largest.
    assert.ok(summary.p99Ms >= STALL_MS * 0.9, `p99 ${summary.p99Ms} ms`);
    // Requests due in the stall's first 200 ms (about 40) waited at least 100 ms, so p80 (the 96th of
    // 120) is at least that; measured from the late sends, only the 4 in flight would be.
    const p80Ms = result.latency.percentileUs(80) / 1000;
    assert.ok(p80Ms >= STALL_MS / 3, `p80 ${p80Ms} ms`);
    // Their waits add up to about 60 × 150 ms: a mean near 75 ms, not the 10 ms of 4 slow samples.
    assert.ok(summary.meanMs >= 50, `mean ${summary.meanMs} ms`);
  } finally {
    await api.close();
  }
});
