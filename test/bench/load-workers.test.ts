// Spreading a load over threads: the split adds up to the whole load, the threads' request cycles
// interleave to the one a single thread would send, and merged results count every answer once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Histogram } from '../../bench/histogram.js';
import { cycleOf, mergeResults, runThreadedLoad, splitLoad, toSent } from '../../bench/load-workers.js';
import { emptyResult, type LoadResult, type RequestSpec } from '../../bench/load.js';
import { startFakeApi } from './fake-api.js';

test('splitLoad: connections as even as can be; amount and rate in proportion, adding up exactly', () => {
  const shares = splitLoad({ connections: 10, amount: 1001, ratePerSecond: 333 }, 3);
  assert.deepEqual(
    shares.map((share) => share.connections),
    [4, 3, 3],
  );
  assert.equal(
    shares.reduce((sum, share) => sum + (share.amount ?? 0), 0),
    1001,
  );
  assert.equal(
    shares.reduce((sum, share) => sum + (share.ratePerSecond ?? 0), 0),
    333,
  );
  assert.deepEqual(
    shares.map((share) => [share.offset, share.stride]),
    [
      [0, 3],
      [1, 3],
      [2, 3],
    ],
  );
  assert.deepEqual(splitLoad({ connections: 5, amount: undefined, ratePerSecond: undefined }, 1), [
    { connections: 5, amount: undefined, ratePerSecond: undefined, offset: 0, stride: 1 },
  ]);
  assert.throws(() => splitLoad({ connections: 2, amount: undefined, ratePerSecond: undefined }, 3), RangeError);
  assert.throws(() => splitLoad({ connections: 2, amount: undefined, ratePerSecond: undefined }, 0), RangeError);
});

test('cycleOf: the threads together send each request of the cycle as often as one thread would', () => {
  const requests: RequestSpec[] = Array.from({ length: 7 }, (_, index) => ({
    method: 'GET',
    path: `/${index}`,
    headers: {},
  }));
  const sent = new Map<string, number>();
  for (let thread = 0; thread < 3; thread++) {
    const next = cycleOf(requests, thread, 3);
    for (let index = 0; index < 7; index++) {
      const path = next(index).path;
      sent.set(path, (sent.get(path) ?? 0) + 1);
    }
  }
  assert.deepEqual([...sent.values()], [3, 3, 3, 3, 3, 3, 3]);
  assert.throws(() => cycleOf([], 0, 1), RangeError);
});

function resultWith(overrides: Partial<LoadResult>, latenciesMs: number[]): LoadResult {
  const latency = new Histogram();
  for (const ms of latenciesMs) latency.recordMs(ms);
  return { ...emptyResult(), elapsedMs: 1000, completed: latenciesMs.length, latency, ...overrides };
}

/** Per-second counts with a hole at second 1 (a thread that answered nothing in that second). */
function withHole(first: number, third: number): number[] {
  const seconds: number[] = [];
  seconds[0] = first;
  seconds[2] = third;
  return seconds;
}

test('mergeResults: counts add up, latencies merge, seconds line up, the longest run is the elapsed time', () => {
  const first = resultWith(
    {
      elapsedMs: 2000,
      bodyBytes: 10,
      statusCounts: { 200: 2 },
      errors: 1,
      problems: ['a'],
      perSecond: { completed: [1, 1], bodyBytes: [5, 5] },
    },
    [1, 2],
  );
  const second = resultWith(
    {
      elapsedMs: 3000,
      bodyBytes: 4,
      statusCounts: { 200: 1, 429: 1 },
      timeouts: 2,
      unexpected: 1,
      problems: ['b', 'c'],
      perSecond: { completed: withHole(1, 1), bodyBytes: withHole(2, 2) },
      stoppedBy: 429,
    },
    [3, 4],
  );
  const merged = mergeResults([toSent(first), toSent(second)], 2);
  assert.equal(merged.elapsedMs, 3000);
  assert.equal(merged.completed, 4);
  assert.equal(merged.bodyBytes, 14);
  assert.deepEqual(merged.statusCounts, { 200: 3, 429: 1 });
  assert.equal(merged.errors + merged.timeouts + merged.unexpected, 4);
  assert.deepEqual(merged.problems, ['a', 'b'], 'problems are capped');
  assert.deepEqual(merged.perSecond, { completed: [2, 1, 1], bodyBytes: [7, 5, 2] });
  assert.equal(merged.stoppedBy, 429);
  assert.equal(merged.latency.count, 4);
  assert.equal(merged.latency.summary().maxMs, 4);
  assert.equal(merged.latency.summary().minMs, 1);
});

test('a histogram crosses threads as a snapshot and reads back the same', () => {
  const histogram = new Histogram();
  for (const ms of [0.2, 1, 1.5, 250, 9000]) histogram.recordMs(ms);
  const copy = Histogram.fromSnapshot(structuredClone(histogram.snapshot()));
  assert.deepEqual(copy.summary(), histogram.summary());
  assert.throws(() => Histogram.fromSnapshot({ ...histogram.snapshot(), counts: [1] }), RangeError);
});

test('runThreadedLoad on 2 threads: the amount is sent once in all, on each thread its own connections', async () => {
  const api = await startFakeApi();
  const progress: number[] = [];
  try {
    const result = await runThreadedLoad(
      {
        origin: api.origin,
        connections: 4,
        pipelining: 2,
        workers: 2,
        amount: 301,
        durationMs: undefined,
        ratePerSecond: undefined,
        timeoutMs: 5000,
        requests: [
          { method: 'GET', path: '/v1/pets', headers: {} },
          { method: 'HEAD', path: '/v1/pets', headers: {} },
        ],
        expectedStatuses: new Set([200]),
        onProgress: (snapshot) => progress.push(snapshot.completed),
        progressIntervalMs: 1,
      },
      () => undefined,
    );
    assert.equal(result.completed, 301);
    assert.deepEqual(result.statusCounts, { 200: 301 });
    assert.equal(result.latency.count, 301);
    assert.equal(api.requests(), 301);
    assert.equal(api.connections(), 4);
    // GETs read "[]", HEADs nothing: 151 of the first request of the cycle, 150 of the second.
    assert.equal(result.bodyBytes, 151 * 2);
  } finally {
    await api.close();
  }
});
