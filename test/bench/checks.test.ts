// The pure parts of over-limit, the report and the baseline server.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { request } from 'undici';
import { admissionNanoseconds, processCpuMs } from '../../bench/admission-cost.js';
import { createBaselineServer } from '../../bench/baseline.js';
import { alternate, median, medianRatio, roundSpreadText, WARMUP_MS, wrkScript } from '../../bench/compare-checks.js';
import { emptyResult } from '../../bench/load.js';
import { checkRateLimitHeaders } from '../../bench/over-limit.js';
import { drawTable, formatBytes, formatJudgedRatio, sampleStats } from '../../bench/report.js';
import { nextLink } from '../../bench/scenarios.js';

const NOW_MS = 1_800_000_000_000;
const good = {
  'x-ratelimit-limit': '60',
  'x-ratelimit-remaining': '0',
  'x-ratelimit-reset': String(NOW_MS / 1000 + 60),
  'ratelimit-policy': '"minute";q=60;w=60, "day";q=1000;w=86400',
  ratelimit: '"minute";r=0;t=60',
  'retry-after': '1',
};

test('rate-limit headers of a 429: all present, Retry-After at least 1 and not past the reset', () => {
  assert.equal(checkRateLimitHeaders(429, good, NOW_MS), undefined);
  assert.equal(
    checkRateLimitHeaders(200, { ...good, 'x-ratelimit-remaining': '59', 'retry-after': undefined }, NOW_MS),
    undefined,
  );
  assert.match(checkRateLimitHeaders(500, good, NOW_MS) ?? '', /expected 200 or 429/);
  assert.match(checkRateLimitHeaders(429, { ...good, 'retry-after': undefined }, NOW_MS) ?? '', /Retry-After missing/);
  assert.match(checkRateLimitHeaders(429, { ...good, 'retry-after': '0' }, NOW_MS) ?? '', /Retry-After/);
  assert.match(checkRateLimitHeaders(429, { ...good, 'retry-after': '3600' }, NOW_MS) ?? '', /past X-RateLimit-Reset/);
  assert.match(
    checkRateLimitHeaders(429, { ...good, 'x-ratelimit-remaining': '3' }, NOW_MS) ?? '',
    /Remaining is not 0/,
  );
  assert.match(checkRateLimitHeaders(200, { ...good, 'x-ratelimit-limit': 'x' }, NOW_MS) ?? '', /Limit/);
  assert.match(checkRateLimitHeaders(200, { ...good, 'x-ratelimit-remaining': '61' }, NOW_MS) ?? '', /Remaining/);
  assert.match(checkRateLimitHeaders(200, { ...good, 'x-ratelimit-reset': '5' }, NOW_MS) ?? '', /Reset/);
  assert.match(checkRateLimitHeaders(200, { ...good, ratelimit: undefined }, NOW_MS) ?? '', /RateLimit/);
});

test('per-second stats leave out a partial last second', () => {
  assert.deepEqual(sampleStats([10, 20, 5], 2500), { mean: 15, stdev: 5, min: 10, max: 20 });
  assert.deepEqual(sampleStats([7], 400), { mean: 7, stdev: 0, min: 7, max: 7 });
  assert.deepEqual(sampleStats([10, undefined, 30], 3000).min, 0);
});

test('tables and sizes print as autocannon prints them', () => {
  assert.equal(
    drawTable([
      ['Stat', 'Avg'],
      ['Req/Sec', '12'],
    ]),
    '┌─────────┬─────┐\n│ Stat    │ Avg │\n├─────────┼─────┤\n│ Req/Sec │ 12  │\n└─────────┴─────┘',
  );
  assert.equal(formatBytes(999), '999 B');
  assert.equal(formatBytes(12_345_678), '12.3 MB');
});

test('the next page is read from Link rel="next"', () => {
  assert.equal(nextLink({ link: '</v1/pets?limit=20&cursor=abc>; rel="next"' }), '/v1/pets?limit=20&cursor=abc');
  assert.equal(nextLink({ link: '</v1/pets>; rel="successor-version"' }), undefined);
  assert.equal(nextLink({}), undefined);
});

test('the baseline answers every request with the recorded bytes', async () => {
  const server = createBaselineServer({
    status: 201,
    headers: [
      ['content-type', 'application/json'],
      ['x-a', '1'],
      ['x-a', '2'],
      ['date', 'old'],
    ],
    body: '{"id":1}',
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await request(`http://127.0.0.1:${port}/anything`, { method: 'POST', body: 'ignored' });
    assert.equal(response.statusCode, 201);
    assert.equal(await response.body.text(), '{"id":1}');
    assert.deepEqual(response.headers['x-a'], ['1', '2']);
    assert.notEqual(response.headers.date, 'old');
  } finally {
    server.close();
  }
});

test(
  "the admission path is timed per request, and a process's CPU time is read from /proc",
  {
    skip: process.platform !== 'linux' && 'reads /proc',
  },
  () => {
    const nanoseconds = admissionNanoseconds(1, 2000);
    assert.ok(Number.isFinite(nanoseconds) && nanoseconds > 0, String(nanoseconds));
    const before = processCpuMs(process.pid) as number;
    // Spends 50 ms of CPU time (not wall time: the machine may be busy).
    const start = process.cpuUsage();
    while (process.cpuUsage(start).user < 50_000) {
      /* spend CPU time */
    }
    const after = processCpuMs(process.pid) as number;
    assert.ok(after >= before + 20, `${before} -> ${after} ms`);
    assert.equal(processCpuMs(2 ** 30), undefined);
  },
);

test('an alternation flips the order every round and runs a second generator after each, told who ran first', async () => {
  const calls: string[] = [];
  const sideNamed =
    (name: string, requests: number) =>
    (durationMs: number): Promise<ReturnType<typeof emptyResult>> => {
      calls.push(`${name} ${durationMs}`);
      return Promise.resolve({ ...emptyResult(), completed: requests, elapsedMs: durationMs });
    };
  const load = { connections: 1, pipelining: 1, durationMs: 3000, rounds: 3, timeoutMs: 1000, workers: 1, log() {} };
  const [a, b] = await alternate(sideNamed('a', 30), sideNamed('b', 60), load, (roundMs, aRanFirst) =>
    calls.push(`wrk ${roundMs} ${aRanFirst ? 'after a first' : 'after b first'}`),
  );
  assert.deepEqual(calls, [
    `a ${WARMUP_MS}`,
    `b ${WARMUP_MS}`,
    ...['a 1000', 'b 1000', 'wrk 1000 after a first'],
    ...['b 1000', 'a 1000', 'wrk 1000 after b first'],
    ...['a 1000', 'b 1000', 'wrk 1000 after a first'],
  ]);
  assert.equal(a.requestsPerSecond, 30);
  assert.equal(b.requestsPerSecond, 60);
  assert.deepEqual(a.roundRequestsPerSecond, [30, 30, 30]);
});

test('a ratio is the median of the per-round ratios, so one round on a slowed machine moves it little', () => {
  assert.equal(median([]), 0);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  // The third round ran while the machine slowed down, and caught the baseline slower than the service:
  // its ratio of 0.5 is an outlier the median passes over.
  const service = [600, 620, 200, 610, 590];
  const baseline = [1000, 1000, 400, 1000, 1000];
  assert.equal(medianRatio(service, baseline), 0.6);
  // A round with no baseline figure has no ratio.
  assert.equal(medianRatio([500, 600], [0, 1000]), 0.6);
});

test('the rounds behind a median are shown by their lowest and highest ratio', () => {
  assert.equal(roundSpreadText([720, 880, 800], [1000, 1000, 1000]), 'rounds 0.72 to 0.88');
  // A round with no baseline figure has no ratio, and one ratio has no spread.
  assert.equal(roundSpreadText([500, 600], [0, 1000]), 'one round');
});

test('a ratio is printed with the digits that tell whether it meets its target', () => {
  // Two digits would print 0.80 for a ratio that misses "at least 0.80", and 1.25 for one over "at most 1.25".
  assert.equal(formatJudgedRatio(0.797, 0.8, 'at least'), '0.797');
  assert.equal(formatJudgedRatio(0.7996, 0.8, 'at least'), '0.7996');
  assert.equal(formatJudgedRatio(1.2512, 1.25, 'at most'), '1.251');
  // Where two digits tell the truth, two it is, on either side of the target.
  assert.equal(formatJudgedRatio(0.803, 0.8, 'at least'), '0.80');
  assert.equal(formatJudgedRatio(0.77, 0.8, 'at least'), '0.77');
  assert.equal(formatJudgedRatio(1.246, 1.25, 'at most'), '1.25');
  assert.equal(formatJudgedRatio(1.3, 1.25, 'at most'), '1.30');
});

test('wrk is given a script only for what it cannot send alone: a method other than GET, and a body', () => {
  assert.equal(wrkScript({ method: 'GET', path: '/v1/pets', headers: {} }), undefined);
  const body = JSON.stringify({ name: 'Bench "pet" \\ ]]', categoryId: 3 });
  assert.equal(
    wrkScript({ method: 'POST', path: '/v1/pets', headers: { 'content-type': 'application/json' }, body }),
    `wrk.method = "POST"\nwrk.body = [==[${body}]==]\n`,
  );
  assert.equal(wrkScript({ method: 'HEAD', path: '/v1/pets', headers: {} }), 'wrk.method = "HEAD"\n');
  assert.throws(() => wrkScript({ method: 'POST', path: '/', headers: {}, body: 'a]==]b' }), TypeError);
});
