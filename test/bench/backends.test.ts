// The pure parts of bench:compare --checks backends and of the CPU figures beside every ratio: the
// order the sides run in, CPU time between two readings of /proc, CPU a request per round and its
// median, the ratios to the reference, and the rows printed. No timing is asserted: the figures are
// made up, the arithmetic and the wording are what is checked.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backendRows } from '../../bench/backends-report.js';
import {
  alternateAll,
  BACKENDS,
  backendFigures,
  backendLoads,
  backendTarget,
  BARE,
  BUSY_CONNECTIONS,
  roundOrder,
} from '../../bench/backends.js';
import {
  medianOfKnown,
  SERVICE_PROBE,
  type SideTotals,
  totals,
  usPerRequest,
  WARMUP_MS,
} from '../../bench/compare-checks.js';
import { cpuBeside, cpuRatio, formatMicroseconds } from '../../bench/cpu-report.js';
import { emptyResult } from '../../bench/load.js';
import { cpuBetween, processProbe } from '../../bench/server-cpu.js';

test('the sides take turns: a rotation one later every other round, reversed every other round', () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((round) => roundOrder(3, round)),
    [
      [0, 1, 2],
      [2, 1, 0],
      [1, 2, 0],
      [0, 2, 1],
      [2, 0, 1],
      [1, 0, 2],
    ],
  );
  // Over the rounds, every side runs in every place.
  for (let side = 0; side < 5; side++) {
    const places = new Set(Array.from({ length: 10 }, (_, round) => roundOrder(5, round).indexOf(side)));
    assert.equal(places.size, 5, `side ${side} ran in places ${[...places].join(', ')}`);
  }
});

test('CPU time between two readings is each process’s own difference; a process gone is left out', () => {
  const before = new Map([
    [10, 100],
    [11, 50],
  ]);
  const after = new Map([
    [10, 130],
    [12, 7],
  ]);
  assert.equal(cpuBetween(before, after), 30 + 7, 'pid 11 ended: its time is not taken as negative');
  assert.equal(cpuBetween(undefined, after), undefined);
  assert.equal(cpuBetween(before, undefined), undefined);
});

test('a probe of a process that does not exist reads nothing rather than zero', async () => {
  assert.equal(await processProbe('service', 2 ** 30).read(), undefined);
});

test('CPU a request counts the warm-up’s answers too, since the CPU was read around both', () => {
  assert.equal(usPerRequest(30, 1500), 20);
  assert.equal(usPerRequest(undefined, 1500), undefined);
  assert.equal(usPerRequest(30, 0), undefined);
  const run = (completed: number, warmupCompleted: number, service: number | undefined) => ({
    ...emptyResult(),
    completed,
    warmupCompleted,
    elapsedMs: 1000,
    cpuMs: { [SERVICE_PROBE]: service, Redis: 10 },
  });
  const side = totals([run(900, 100, 20), run(1900, 100, 50), run(400, 100, 30)]);
  assert.deepEqual(side.roundCpuUsPerRequest[SERVICE_PROBE], [20, 25, 60]);
  assert.equal(side.cpuUsPerRequest[SERVICE_PROBE], 25);
  assert.deepEqual(side.roundCpuUsPerRequest.Redis, [10, 5, 20]);
  assert.equal(totals([run(900, 100, 20), run(900, 100, undefined)]).cpuUsPerRequest[SERVICE_PROBE], undefined);
  assert.equal(medianOfKnown([]), undefined);
});

/** A side's totals with made-up figures: requests/s and the CPU µs a request of each probe, per round. */
function made(rates: number[], cpu: Record<string, Array<number | undefined>>, generatorShare = 0.5): SideTotals {
  const cpuUsPerRequest: Record<string, number | undefined> = {};
  for (const [name, rounds] of Object.entries(cpu)) cpuUsPerRequest[name] = medianOfKnown(rounds);
  return {
    requests: 0,
    elapsedMs: 0,
    requestsPerSecond: rates.reduce((sum, rate) => sum + rate, 0) / rates.length,
    roundRequestsPerSecond: rates,
    p50Ms: 1,
    p99Ms: 2,
    unexpected: 0,
    problems: [],
    generatorShare,
    roundCpuUsPerRequest: cpu,
    cpuUsPerRequest,
  };
}

test('CPU beside a ratio: each side’s median, and the median of the per-round ratios', () => {
  const a = made([100, 100, 100], { service: [30, 20, 40] });
  const b = made([200, 200, 200], { service: [10, 10, 10] });
  assert.equal(cpuRatio(a, b, SERVICE_PROBE), 3);
  assert.equal(cpuBeside(a, b, SERVICE_PROBE), 'CPU a request 30.0 µs / 10.0 µs (3.00×)');
  const unreadable = made([100], { service: [undefined] });
  assert.equal(cpuBeside(unreadable, b, SERVICE_PROBE), 'CPU a request: not readable from /proc here');
  assert.equal(formatMicroseconds(123.4), '123 µs');
});

test('backends: each configuration against the embedded store with the in-memory limiter, servers included', () => {
  const sides = [
    made([60_000, 60_000], { service: [12, 12] }),
    made([40_000, 40_000], { service: [18, 20] }),
    made([30_000, 30_000], { service: [20, 26], Redis: [8, 8] }),
    made([20_000, 20_000], { service: [27, 30], PostgreSQL: [9, 10] }, 0.95),
    made([15_000, 15_000], { service: [36, 40], Redis: [8, 8], PostgreSQL: [9, 10] }),
  ];
  const result = backendFigures('get', 50, sides);
  assert.deepEqual(
    result.figures.map((figure) => figure.backend),
    [BARE, ...BACKENDS.map((backend) => backend.name)],
  );
  const redis = result.figures[2];
  assert.equal(redis?.serviceCpuRatio, (20 / 18 + 26 / 20) / 2);
  assert.equal(redis?.allCpuRatio, (28 / 18 + 34 / 20) / 2);
  assert.equal(redis?.throughputRatio, 0.75);
  assert.equal(backendTarget('embedded + Redis', 'get'), 1.25);
  assert.equal(backendTarget('embedded + Redis', 'create'), undefined);
  assert.equal(backendTarget('PostgreSQL + in-memory', 'list'), 1.5);
  assert.equal(backendTarget('PostgreSQL + in-memory', 'create'), 2);
  assert.equal(backendTarget('PostgreSQL + Redis', 'get'), undefined);

  const rows = backendRows(result);
  assert.deepEqual(
    rows.map((row) => [row.check, row.target, row.pass]),
    [
      ['backends get (50 connections): bare node:http', '(the machine)', true],
      ['backends get (50 connections): embedded + in-memory', '(reference)', true],
      ['backends get (50 connections): embedded + Redis', 'service ≤ 1.25×', true],
      ['backends get (50 connections): PostgreSQL + in-memory', 'service ≤ 1.5×', true],
      ['backends get (50 connections): PostgreSQL + Redis', '(information)', true],
    ],
  );
  // Busy: CPU a request times requests a second (12 µs × 60,000 a second is 72 % of a core).
  assert.equal(rows[0]?.measured, '12.0 µs a request, busy 72 % of its core; 60,000 req/s');
  assert.equal(
    rows[1]?.measured,
    '19.0 µs a request, busy 76 % of its core (1.58× bare node:http); 40,000 req/s (0.67× bare node:http)',
  );
  assert.equal(
    rows[2]?.measured,
    'service 1.21× (23.0 µs a request, busy 69 % of its core); Redis 8.00 µs; with the servers 1.63×; 30,000 req/s (0.75× the reference)',
  );
  assert.match(rows[3]?.measured ?? '', /; PostgreSQL 9.50 µs; .*generator-bound \(the generator used 95 %\)$/);
  // Over its target: a miss.
  const slow = backendRows(
    backendFigures('list', 50, [
      sides[0],
      sides[1],
      made([1, 1], { service: [30, 30], Redis: [8, 8] }),
      sides[3],
      sides[4],
    ] as SideTotals[]),
  );
  assert.equal(slow[2]?.pass, false);
});

test('backends judge reads when busy: get and list also at 200 connections, the asked load reported beside', () => {
  assert.equal(BUSY_CONNECTIONS, 200);
  assert.deepEqual(backendLoads('get', 10), [
    { connections: 10, judged: false },
    { connections: 200, judged: true },
  ]);
  assert.deepEqual(backendLoads('list', 200), [{ connections: 200, judged: true }]);
  assert.deepEqual(backendLoads('list', 300), [{ connections: 300, judged: true }]);
  assert.deepEqual(backendLoads('create', 10), [{ connections: 64, judged: true }]);
  assert.deepEqual(backendLoads('create', 500), [{ connections: 64, judged: true }]);

  // Over every target, but at a load where none is judged: reported, and no miss.
  const sides = [
    made([60_000], { service: [12] }),
    made([40_000], { service: [18] }),
    made([20_000], { service: [40], Redis: [8] }),
    made([20_000], { service: [40], PostgreSQL: [9] }),
    made([15_000], { service: [50], Redis: [8], PostgreSQL: [9] }),
  ];
  const waiting = backendRows(backendFigures('get', 10, sides, false));
  assert.deepEqual(
    waiting.map((row) => [row.check, row.target, row.pass]),
    [
      ['backends get (10 connections): bare node:http', '(the machine)', true],
      ['backends get (10 connections): embedded + in-memory', '(reference)', true],
      ['backends get (10 connections): embedded + Redis', '(judged at 200 connections)', true],
      ['backends get (10 connections): PostgreSQL + in-memory', '(judged at 200 connections)', true],
      ['backends get (10 connections): PostgreSQL + Redis', '(information)', true],
    ],
  );
  assert.match(waiting[2]?.measured ?? '', /^service 2\.22× /);
  const busy = backendRows(backendFigures('get', 200, sides));
  assert.deepEqual(
    busy.map((row) => [row.target, row.pass]),
    [
      ['(the machine)', true],
      ['(reference)', true],
      ['service ≤ 1.25×', false],
      ['service ≤ 1.5×', false],
      ['(information)', true],
    ],
  );
});

test('backends alternate every side after warming each up, and total each', async () => {
  const calls: string[] = [];
  const sideNamed = (name: string) => (durationMs: number) => {
    calls.push(`${name} ${durationMs}`);
    return Promise.resolve({ ...emptyResult(), completed: durationMs, elapsedMs: durationMs });
  };
  const load = { connections: 1, pipelining: 1, durationMs: 2000, rounds: 2, timeoutMs: 1000, workers: 1, log() {} };
  const measured = await alternateAll([sideNamed('a'), sideNamed('b'), sideNamed('c')], load);
  assert.deepEqual(calls, [
    `a ${WARMUP_MS}`,
    `b ${WARMUP_MS}`,
    `c ${WARMUP_MS}`,
    ...['a 1000', 'b 1000', 'c 1000'],
    ...['c 1000', 'b 1000', 'a 1000'],
  ]);
  assert.deepEqual(
    measured.map((side) => side.requestsPerSecond),
    [1000, 1000, 1000],
  );
});
