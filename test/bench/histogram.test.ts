// The latency histogram: exact below 128 µs, within 1/128 above, percentiles by rank.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bucketIndex, bucketUpperUs, Histogram, MAX_TRACKABLE_US } from '../../bench/histogram.js';

test('values below 128 µs have a bucket each', () => {
  for (let value = 0; value < 128; value++) {
    assert.equal(bucketIndex(value), value);
    assert.equal(bucketUpperUs(value), value);
  }
});

test('every value lies in its bucket, whose width is at most 1/128 of the value', () => {
  for (const value of [128, 129, 255, 256, 257, 1000, 4095, 4096, 123_456, 10_000_000, MAX_TRACKABLE_US]) {
    const index = bucketIndex(value);
    const upper = bucketUpperUs(index);
    const lower = index === 0 ? 0 : bucketUpperUs(index - 1) + 1;
    assert.ok(lower <= value && value <= upper, `${value} in [${lower}, ${upper}]`);
    assert.ok(upper - lower + 1 <= Math.max(1, value / 128), `bucket of ${value} is ${upper - lower + 1} wide`);
  }
});

test('bucket indexes grow with the value, without gaps', () => {
  let previous = bucketIndex(0);
  for (let value = 1; value < 70_000; value++) {
    const index = bucketIndex(value);
    assert.ok(index === previous || index === previous + 1, `${value}: ${previous} then ${index}`);
    previous = index;
  }
});

test('percentiles of 1..10,000 ms are within 1 % of the exact ones', () => {
  const histogram = new Histogram();
  for (let ms = 1; ms <= 10_000; ms++) histogram.recordMs(ms);
  const summary = histogram.summary();
  const near = (actual: number, expected: number): void =>
    assert.ok(Math.abs(actual - expected) <= expected / 100, `${actual} ≈ ${expected}`);
  near(summary.p50Ms, 5000);
  near(summary.p90Ms, 9000);
  near(summary.p99Ms, 9900);
  near(summary.p99_9Ms, 9990);
  assert.equal(summary.maxMs, 10_000);
  assert.equal(summary.minMs, 1);
  assert.equal(summary.count, 10_000);
  near(summary.meanMs, 5000.5);
});

test('a percentile is the value at rank ceil(p × count), and never above the largest sample', () => {
  const histogram = new Histogram();
  for (let i = 0; i < 99; i++) histogram.recordUs(100);
  histogram.recordUs(50_000);
  assert.equal(histogram.percentileUs(50), 100);
  assert.equal(histogram.percentileUs(99), 100);
  assert.equal(histogram.percentileUs(99.9), 50_000);
  assert.equal(histogram.percentileUs(100), 50_000);
});

test('an empty histogram reports zeros; negatives count as 0 and huge values as the maximum', () => {
  assert.deepEqual(new Histogram().summary(), {
    count: 0,
    minMs: 0,
    meanMs: 0,
    stdevMs: 0,
    p50Ms: 0,
    p90Ms: 0,
    p99Ms: 0,
    p99_9Ms: 0,
    maxMs: 0,
  });
  const histogram = new Histogram();
  histogram.recordMs(-3);
  histogram.recordUs(2 ** 40);
  assert.equal(histogram.percentileUs(1), 0);
  assert.equal(histogram.percentileUs(100), MAX_TRACKABLE_US);
});

test('merging adds counts, and the merged percentiles are those of all samples', () => {
  const fast = new Histogram();
  const slow = new Histogram();
  for (let i = 0; i < 90; i++) fast.recordUs(200);
  for (let i = 0; i < 10; i++) slow.recordUs(20_000);
  fast.merge(slow);
  assert.equal(fast.count, 100);
  assert.equal(fast.percentileUs(90), 200);
  assert.ok(Math.abs(fast.percentileUs(91) - 20_000) <= 20_000 / 128);
  assert.equal(fast.summary().stdevMs, 5.94);
});
