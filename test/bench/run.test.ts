// End to end: short bench runs against a local service (a child process on a temporary directory)
// and, with --url, against an in-process test server; asserting the counts and the JSON shape, never
// the speed.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from '../../bench/report.js';
import { type BenchIo, runBenchCommand } from '../../bench/run.js';
import { runBench } from '../../src/cli/bench.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { runCli } from '../helpers/child.js';
import { call, createPet, startServer, TEST_KEY, type TestServer } from '../helpers/server.js';
import { startFakeApi } from './fake-api.js';

/** A free-plan key (60/min) of the test server, for over-limit. */
const FREE_KEY = 'bench-test-free-key-0123456789';
/** Pets of the seeded server, created in id order with the three statuses in turn. */
const SEEDED_PETS = 250;
const STATUSES = ['available', 'pending', 'sold'] as const;
type Pet = Awaited<ReturnType<typeof createPet>>;
let dir: string;
let server: TestServer;
/** A server of its own with SEEDED_PETS known pets, for the scenarios whose answers depend on them. */
let seeded: TestServer;
const seededPets: Pet[] = [];
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'animal-store-bench-test-'));
  server = await startServer({
    keys: [
      { key: TEST_KEY, plan: 'enterprise', perMinute: 1_000_000, perDay: 100_000_000 },
      { key: FREE_KEY, plan: 'free' },
    ],
  });
  seeded = await startServer();
  for (let index = 0; index < SEEDED_PETS; index++) {
    seededPets.push(
      await createPet(seeded, { name: `Pet ${index + 1}`, categoryId: 1 + (index % 5), status: STATUSES[index % 3] }),
    );
  }
});
after(async () => {
  await server.close();
  await seeded.close();
  await rm(dir, { recursive: true, force: true });
});

/** The number of pets a server holds (X-Total-Count). */
async function totalPets(target: TestServer): Promise<number> {
  return Number((await call(target, 'GET', '/v1/pets?limit=1')).headers['x-total-count']);
}

/** Runs the bench with -q against `target` and TEST_KEY; resolves with the exit code and the report. */
async function benchAt(
  target: TestServer,
  args: readonly string[],
): Promise<{ code: number; report: BenchReport; err: string }> {
  const io = capture();
  const code = await runBenchCommand(['--url', `${target.url}/v1`, '--key', TEST_KEY, '-q', ...args], {}, io);
  return { code, report: JSON.parse(io.out()) as BenchReport, err: io.err() };
}

function capture(): BenchIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    print: (text) => {
      out += text;
    },
    printErr: (text) => {
      err += text;
    },
    isTty: false,
    out: () => out,
    err: () => err,
  };
}

test('list --amount 200 over 4 connections: 200 answers of 200, a table and the JSON file', async () => {
  const io = capture();
  const file = join(dir, 'list.json');
  const code = await runBenchCommand(
    ['--scenario', 'list', '--amount', '200', '--connections', '4', '--json', file],
    {},
    io,
  );
  assert.equal(code, 0, io.out() + io.err());
  assert.match(io.out(), /│ Latency │/);
  assert.match(io.out(), /Status codes: 200 × 200/);
  const report = JSON.parse(await readFile(file, 'utf8')) as BenchReport;
  assert.equal(report.scenario, 'list');
  assert.match(report.url, /^http:\/\/127\.0\.0\.1:[0-9]+\/v1$/);
  assert.equal(report.connections, 4);
  assert.equal(report.amount, 200);
  assert.deepEqual(report.statusCodes, { 200: 200 });
  assert.equal(report.requests.total, 200);
  assert.equal(report.errors, 0);
  assert.equal(report.timeouts, 0);
  assert.equal(report.unexpected, 0);
  assert.equal(report.ok, true);
  assert.ok(report.throughput.bodyBytes > 200 * 20 * 40, 'twenty pets per answer');
  assert.deepEqual(Object.keys(report.latency), [
    'count',
    'minMs',
    'meanMs',
    'stdevMs',
    'p50Ms',
    'p90Ms',
    'p99Ms',
    'p99_9Ms',
    'maxMs',
  ]);
  assert.equal(report.latency.count, 200);
  assert.ok(report.latency.p50Ms <= report.latency.p99Ms && report.latency.p99Ms <= report.latency.maxMs);
});

test('against a deployment (--url): missing pets are created with --pets, then fetched', async () => {
  const io = capture();
  const code = await runBenchCommand(
    [
      '--url',
      `${server.url}/v1`,
      '--key',
      TEST_KEY,
      '--scenario',
      'get',
      '--pets',
      '30',
      '--amount',
      '60',
      '-c',
      '3',
      '-q',
    ],
    {},
    io,
  );
  const report = JSON.parse(io.out()) as BenchReport;
  assert.equal(code, 0, io.err());
  assert.deepEqual(report.statusCodes, { 200: 60 });
  assert.equal(report.notes.distinctIds, 30);
  assert.equal((await call(server, 'GET', '/v1/pets?limit=1')).headers['x-total-count'], '30');
});

test('--pipelining 4 on one connection: requests overlap on it, and every answer is counted', async () => {
  // A stand-in server holding each answer 5 ms, so pipelined requests overlap where it can see them.
  const api = await startFakeApi(() => 5);
  const io = capture();
  const code = await runBenchCommand(
    ['--url', `${api.origin}/v1`, '--key', TEST_KEY, '--amount', '40', '-c', '1', '-p', '4', '-q'],
    {},
    io,
  ).finally(() => api.close());
  const report = JSON.parse(io.out()) as BenchReport;
  assert.equal(code, 0, io.err());
  assert.equal(report.connections, 1);
  assert.equal(report.pipelining, 4);
  assert.deepEqual(report.statusCodes, { 200: 40 });
  assert.equal(report.latency.count, 40);
  assert.equal(api.requests(), 40);
  assert.equal(api.connections(), 1);
  assert.ok(
    api.maxInFlightPerConnection() > 1,
    `at most ${api.maxInFlightPerConnection()} request in flight on the connection`,
  );
  assert.ok(api.maxInFlightPerConnection() <= 4);
});

test('--duration 300ms instead of --amount: a run of at least that long, every answer counted, amount left out of the JSON', async () => {
  const { code, report, err } = await benchAt(seeded, ['--duration', '300ms', '-c', '2']);
  assert.equal(code, 0, err);
  assert.deepEqual(Object.keys(report), [
    'scenario',
    'description',
    'url',
    'connections',
    'pipelining',
    'workers',
    'durationMs',
    'startedAt',
    'elapsedMs',
    'requests',
    'throughput',
    'latency',
    'statusCodes',
    'errors',
    'timeouts',
    'unexpected',
    'problems',
    'ok',
    'notes',
  ]);
  assert.equal(report.durationMs, 300);
  assert.ok(report.elapsedMs >= 300 && report.elapsedMs < 5000, `elapsed ${report.elapsedMs} ms`);
  assert.ok(report.requests.total > 0);
  assert.deepEqual(report.statusCodes, { 200: report.requests.total });
  assert.equal(report.latency.count, report.requests.total);
  assert.equal(report.ok, true);
});

test('list-status: every answer is the first page of available pets', async () => {
  const expected = JSON.stringify(seededPets.filter((pet) => pet.status === 'available').slice(0, 20));
  assert.equal((await call(seeded, 'GET', '/v1/pets?limit=20&status=available')).text, expected);
  const { code, report, err } = await benchAt(seeded, ['--scenario', 'list-status', '--amount', '30', '-c', '2']);
  assert.equal(code, 0, err);
  assert.equal(report.scenario, 'list-status');
  assert.deepEqual(report.statusCodes, { 200: 30 });
  assert.equal(report.throughput.bodyBytes, 30 * Buffer.byteLength(expected));
});

test('deep-page on a small store: Link is followed to the page 90 % in, and only that page is fetched', async () => {
  const total = await totalPets(seeded);
  const { code, report, err } = await benchAt(seeded, ['--scenario', 'deep-page', '--amount', '30', '-c', '2']);
  assert.equal(code, 0, err);
  // Walked 100 at a time, 250 pets give pages after 100 and after 200; the one after 200 is the last
  // (90 % of 250 lies in it), so the deep page starts there, fetched 20 at a time as list is.
  assert.deepEqual(report.notes, { petsBefore: 200, totalPets: total });
  assert.deepEqual(report.statusCodes, { 200: 30 });
  assert.equal(report.throughput.bodyBytes, 30 * Buffer.byteLength(JSON.stringify(seededPets.slice(200, 220))));
});

test('create: every request is a 201, and the store holds that many new pets', async () => {
  const fresh = await startServer();
  try {
    const { code, report, err } = await benchAt(fresh, ['--scenario', 'create', '--amount', '50', '-c', '4']);
    assert.equal(code, 0, err);
    assert.deepEqual(report.statusCodes, { 201: 50 });
    assert.equal(await totalPets(fresh), 50);
    assert.deepEqual((await call(fresh, 'GET', '/v1/pets?limit=1')).json, [
      { id: 1, name: 'Bench pet', categoryId: 3, status: 'available' },
    ]);
  } finally {
    await fresh.close();
  }
});

test('mixed: of 100 requests, every tenth creates a pet and the others read', async () => {
  const before = await totalPets(seeded);
  const { code, report, err } = await benchAt(seeded, ['--scenario', 'mixed', '--amount', '100', '-c', '4']);
  assert.equal(code, 0, err);
  assert.deepEqual(report.statusCodes, { 200: 90, 201: 10 });
  assert.equal(report.notes.distinctIds, before);
  assert.equal(await totalPets(seeded), before + 10);
});

test('an answer the scenario does not expect (401 for an unknown key) fails the run with exit code 1', async () => {
  const io = capture();
  const code = await runBenchCommand(
    ['--url', `${server.url}/v1`, '--key', 'bench-wrong-key-0123456789', '--amount', '5', '-q'],
    {},
    io,
  );
  const report = JSON.parse(io.out()) as BenchReport;
  assert.equal(code, 1);
  assert.equal(report.ok, false);
  assert.deepEqual(report.statusCodes, { 401: 5 });
  assert.equal(report.unexpected, 5);
  assert.deepEqual(report.problems, Array(5).fill('unexpected status 401'));
});

test('unauthorized expects 401, then 429 once the address has spent its 30 failed authentications', async () => {
  // A service of its own: this scenario empties the failed-authentication bucket of 127.0.0.1.
  const fresh = await startServer();
  const io = capture();
  const code = await runBenchCommand(
    ['--url', `${fresh.url}/v1`, '--scenario', 'unauthorized', '--amount', '40', '--connections', '2', '-q'],
    {},
    io,
  ).finally(() => fresh.close());
  const report = JSON.parse(io.out()) as BenchReport;
  assert.equal(code, 0, io.err());
  assert.deepEqual(report.statusCodes, { 401: 30, 429: 10 });
});

test('over-limit: a free key gets 200s then 429s with valid headers, and recovers by honouring Retry-After', async () => {
  const io = capture();
  const code = await runBenchCommand(
    ['--url', `${server.url}/v1`, '--key', FREE_KEY, '--scenario', 'over-limit', '--connections', '4', '-q'],
    {},
    io,
  );
  const report = JSON.parse(io.out()) as BenchReport & {
    notes: { limit: number; recovery: { recovered: boolean; attempts: number } };
  };
  assert.equal(code, 0, JSON.stringify(report.problems));
  assert.equal(report.notes.limit, 60);
  assert.equal((report.statusCodes[200] ?? 0) + (report.statusCodes[429] ?? 0), report.requests.total);
  assert.ok((report.statusCodes[429] ?? 0) >= 15);
  assert.equal(report.notes.recovery.recovered, true);
});

test('animal-store bench: --help prints the options and examples, a bad option is a usage error', async () => {
  let printed = '';
  await runBench(['--help'], {}, (text) => {
    printed += text;
  });
  assert.match(printed, /--connections N/);
  assert.match(printed, /\nExamples:\n {2}npm run bench -- --scenario /);
  assert.match(printed, /\n {2}animal-store bench --url /);
  await assert.rejects(
    runBench(['--connections', 'many'], {}, () => {}),
    (error: unknown) => error instanceof UsageError && /--connections/.test(error.message),
  );
});

/** `npm run bench -- ARGS` as npm runs it (tsx bench/run.ts), from the repository root. */
function runBenchScript(args: readonly string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout })));
}

test('as a process, animal-store bench and npm run bench exit with code 1 when a scenario gets an answer it does not expect (a wrong --key); animal-store --help shows examples', async () => {
  // A service of its own: the wrong key spends failed authentications of 127.0.0.1.
  const fresh = await startServer();
  try {
    const wrongKey = [
      '--url',
      `${fresh.url}/v1`,
      '--key',
      'bench-wrong-key-0123456789',
      '--scenario',
      'list',
      '--amount',
      '3',
      '-q',
    ];
    const cli = runCli(['bench', ...wrongKey]);
    const help = runCli(['--help']);
    const script = runBenchScript(wrongKey);
    assert.equal(await cli.exited, 1, cli.stderr());
    const report = JSON.parse(cli.stdout()) as BenchReport;
    assert.equal(report.ok, false);
    assert.deepEqual(report.statusCodes, { 401: 3 });
    const fromScript = await script;
    assert.equal(fromScript.code, 1);
    assert.deepEqual((JSON.parse(fromScript.stdout) as BenchReport).statusCodes, { 401: 3 });
    assert.equal(await help.exited, 0);
    assert.match(help.stdout(), /\nExamples:\n {2}animal-store serve /);
    assert.match(help.stdout(), /\n {2}animal-store bench /);
  } finally {
    await fresh.close();
  }
});

test('a key whose plan is too small for the load stops the run at the first 429, saying which key a load test needs', async () => {
  const FREE_KEY = 'bench-free-key-0123456789';
  const limited = await startServer({ keys: [{ key: FREE_KEY, plan: 'free' }] });
  const io = capture();
  try {
    await assert.rejects(
      runBenchCommand(
        ['--url', `${limited.url}/v1`, '--key', FREE_KEY, '--scenario', 'list', '--amount', '500', '-c', '2', '-q'],
        {},
        io,
      ),
      /stopped early: the service answered 429 .* animal-store keys create --plan enterprise/,
    );
  } finally {
    await limited.close();
  }
});
