// Failed authentication per client address (README "Rate limits"): 30 tokens refilled over 60 s, one per
// 401; an empty bucket refuses every request from the address before its key is looked at; the
// table is bounded, least recently used address evicted first.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { MemoryLimiter } from '../../src/limits/index.js';
import { assertSaneHeaders, headerListOf, headersOf, T0_MS, T0_S } from './helpers.js';

const POLICY = '"failed-auth";q=30;w=60';

function failTimes(limiter: MemoryLimiter, address: string, count: number): void {
  for (let i = 0; i < count; i += 1) limiter.chargeFailedAuth(address);
}

test('an address that never failed authentication is let through with no headers', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  assert.equal(limiter.checkAddress('192.0.2.1'), undefined);
  assert.equal(limiter.sizes.addresses, 0);
});

test('a 401 carries the address bucket headers with the policy "failed-auth"', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  const first = limiter.chargeFailedAuth('192.0.2.1');
  assert.equal(first.allowed, true);
  // One token comes back every 60 / 30 = 2 s.
  assert.deepEqual(headerListOf(first), [
    ['x-ratelimit-limit', '30'],
    ['x-ratelimit-remaining', '29'],
    ['x-ratelimit-reset', String(T0_S + 2)],
    ['ratelimit-policy', POLICY],
    ['ratelimit', '"failed-auth";r=29;t=2'],
  ]);
});

test('an address gets 30 401s, then 429 rate_limited before its key is looked at', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  for (let i = 0; i < 29; i += 1) {
    assert.equal(limiter.checkAddress('192.0.2.1'), undefined);
    limiter.chargeFailedAuth('192.0.2.1');
  }
  assert.equal(limiter.checkAddress('192.0.2.1'), undefined);
  const thirtieth = limiter.chargeFailedAuth('192.0.2.1');
  assert.equal(headersOf(thirtieth)['x-ratelimit-remaining'], '0');
  assert.equal(headersOf(thirtieth)['x-ratelimit-reset'], String(T0_S + 60));

  const refused = limiter.checkAddress('192.0.2.1');
  assert.equal(refused?.allowed, false);
  assert.equal(refused?.refusal, 'rate_limited');
  assert.equal(refused?.retryAfterSeconds, 2);
  assert.deepEqual(headerListOf(refused), [
    ['x-ratelimit-limit', '30'],
    ['x-ratelimit-remaining', '0'],
    ['x-ratelimit-reset', String(T0_S + 60)],
    ['ratelimit-policy', POLICY],
    ['ratelimit', '"failed-auth";r=0;t=60'],
    ['retry-after', '2'],
  ]);
});

test('checking an address takes no token, and its bucket refills one token every 2 s', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  failTimes(limiter, 'a', 30);
  for (let i = 0; i < 100; i += 1) assert.equal(limiter.checkAddress('a')?.refusal, 'rate_limited');
  clock.advance(1_999);
  assert.equal(limiter.checkAddress('a')?.retryAfterSeconds, 1);
  clock.advance(1);
  assert.equal(limiter.checkAddress('a'), undefined);
  limiter.chargeFailedAuth('a');
  assert.equal(limiter.checkAddress('a')?.refusal, 'rate_limited');
});

test('other addresses are not affected by one address failing', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS));
  failTimes(limiter, 'a', 40);
  assert.equal(limiter.checkAddress('b'), undefined);
});

test('an address whose bucket is full again leaves the table', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  limiter.chargeFailedAuth('a');
  assert.equal(limiter.sizes.addresses, 1);
  clock.advance(2_000);
  assert.equal(limiter.checkAddress('a'), undefined);
  assert.equal(limiter.sizes.addresses, 0);
});

test('the address table is bounded: past maxAddresses the least recently used address is evicted and starts full', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { maxAddresses: 3 });
  failTimes(limiter, 'a', 30);
  failTimes(limiter, 'b', 30);
  failTimes(limiter, 'c', 30);
  assert.equal(limiter.checkAddress('a')?.refusal, 'rate_limited'); // a is now the most recently used
  failTimes(limiter, 'd', 1); // evicts b, the least recently used
  assert.equal(limiter.sizes.addresses, 3);
  assert.equal(limiter.checkAddress('b'), undefined);
  assert.equal(limiter.checkAddress('a')?.refusal, 'rate_limited');
  assert.equal(limiter.checkAddress('c')?.refusal, 'rate_limited');
  assert.equal(headersOf(limiter.chargeFailedAuth('b'))['x-ratelimit-remaining'], '29');
});

test('the address table never grows past its bound, whatever the number of addresses', () => {
  const limiter = new MemoryLimiter(new ManualClock(T0_MS), { maxAddresses: 100 });
  for (let i = 0; i < 10_000; i += 1) limiter.chargeFailedAuth(`10.0.${i >> 8}.${i & 255}`);
  assert.equal(limiter.sizes.addresses, 100);
});

test('the failed-auth capacity and window are configurable and appear in the policy', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { failedAuthCapacity: 5, failedAuthWindowMs: 10_000 });
  failTimes(limiter, 'a', 4);
  const fifth = limiter.chargeFailedAuth('a');
  assert.equal(headersOf(fifth)['ratelimit-policy'], '"failed-auth";q=5;w=10');
  assert.equal(headersOf(fifth).ratelimit, '"failed-auth";r=0;t=10');
  assertSaneHeaders(fifth);
  assert.equal(limiter.checkAddress('a')?.retryAfterSeconds, 2);
});
