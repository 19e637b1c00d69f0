// The limiter's options: README "Rate limits" defaults, and a TypeError naming any bad option.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { MemoryLimiter, resolveLimiterOptions } from '../../src/limits/index.js';
import { RefusalWindow } from '../../src/limits/refusal-window.js';

test('the defaults are those of README "Rate limits"', () => {
  assert.deepEqual(resolveLimiterOptions(), {
    refusalsBeforeBan: 30,
    refusalWindowMs: 60_000,
    banMs: 900_000,
    failedAuthCapacity: 30,
    failedAuthWindowMs: 60_000,
    maxAddresses: 10_000,
  });
  assert.equal(new MemoryLimiter(new ManualClock(0)).options.banMs, 900_000);
});

test('a bad option throws a TypeError naming it', () => {
  const bad: Array<[string, number]> = [
    ['refusalsBeforeBan', -1],
    ['refusalsBeforeBan', 1_001],
    ['refusalWindowMs', 0],
    ['banMs', 1.5],
    ['failedAuthCapacity', Number.NaN],
    ['failedAuthWindowMs', Number.POSITIVE_INFINITY],
    ['maxAddresses', 0],
  ];
  for (const [name, value] of bad) {
    assert.throws(
      () => new MemoryLimiter(new ManualClock(0), { [name]: value }),
      (error: unknown) => error instanceof TypeError && error.message.includes(name),
    );
  }
});

test('the refusal window bans on the (N+1)th refusal within the window, and only then', () => {
  const window = new RefusalWindow(2);
  assert.equal(window.record(0, 1_000), false);
  assert.equal(window.record(10, 1_000), false);
  assert.equal(window.record(1_000, 1_000), false); // 0, 10, 1000: the first is a full window old
  assert.equal(window.record(1_005, 1_000), true); // 10, 1000, 1005: three within 1 s
  window.clear();
  assert.equal(window.record(1_006, 1_000), false);
  const strict = new RefusalWindow(0);
  assert.equal(strict.record(5, 1_000), true);
});
