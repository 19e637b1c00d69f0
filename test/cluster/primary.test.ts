// The cluster primary (src/cli/cluster.ts) as a real process over a tiny worker script: it forks N
// workers sharing one port, a stop signal drains every worker and exits 0, a worker killed with
// SIGKILL is replaced and the replacement logged, and a worker that cannot start stops the whole.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { describeBackends } from '../../src/app/describe-backends.js';
import { replacementDelayMs, MAX_REPLACEMENT_DELAY_MS, workersRefusal } from '../../src/cli/cluster.js';
import { type Child, runClusterPrimary, waitForMatch } from '../helpers/child.js';
import { groupAlive } from '../helpers/supervised.js';

const WORKER = fileURLToPath(new URL('../helpers/cluster-worker.ts', import.meta.url));

function primary(workers: number, env: NodeJS.ProcessEnv = {}, detached = false, clockStands = false): Child {
  return runClusterPrimary({ workers, exec: WORKER, args: [], clockStands }, env, detached);
}

/**
 * Waits until `read()` matches `pattern`; resolves with the match. A worker starts from the sources
 * (tsx compiling them), which on a busy machine has taken over 20 s: the bound is generous.
 */
const waitFor = (read: () => string, pattern: RegExp, what: string): Promise<RegExpExecArray> =>
  waitForMatch(read, pattern, { what, timeoutMs: 90_000 });

/** The pid of the worker that answers a request on a new connection. */
async function answeringPid(url: string, path = '/'): Promise<number> {
  const response = await request(`${url}${path}`, { reset: true });
  return Number(await response.body.text());
}

/** Asks until `wanted` pids answered (connections are dealt to the workers in turn). */
async function pidsAnswering(url: string, wanted: (pids: Set<number>) => boolean): Promise<Set<number>> {
  const pids = new Set<number>();
  for (let attempt = 0; attempt < 200 && !wanted(pids); attempt += 1) pids.add(await answeringPid(url));
  return pids;
}

test(
  'two workers share one port; SIGKILL of one is replaced and logged; SIGTERM drains every worker, exit 0',
  {
    timeout: 120_000,
  },
  async (t) => {
    if (process.platform === 'win32') return t.skip('signals are POSIX');
    const child = primary(2);
    try {
      const [, url] = await waitFor(child.stdout, /listening on (http:\/\/\S+)/, 'listening line');
      assert.match(child.stderr(), /primary: primary pid \d+ starts 2 workers/);
      const started = await waitFor(child.stderr, /primary: 2 workers listen on one port: pids (\d+), (\d+)/, 'start');
      const workerPids = [Number(started[1]), Number(started[2])];
      const pids = await pidsAnswering(url as string, (seen) => seen.size === 2);
      assert.deepEqual([...pids].sort(), [...workerPids].sort(), 'both workers answer on the one port');

      const killed = workerPids[0] as number;
      process.kill(killed, 'SIGKILL');
      await waitFor(
        child.stderr,
        new RegExp(`worker pid ${killed} died \\(SIGKILL\\); a replacement starts in 0 ms`),
        'death',
      );
      const replaced = await waitFor(
        child.stderr,
        new RegExp(`worker pid (\\d+) replaces pid ${killed} and listens`),
        'replacement',
      );
      const replacement = Number(replaced[1]);
      const after = await pidsAnswering(
        url as string,
        (seen) => seen.has(replacement) && seen.has(workerPids[1] as number),
      );
      assert.ok(!after.has(killed), 'the killed worker answers no more');

      // A request in flight when the stop signal comes is answered before its worker exits.
      const slow = answeringPid(url as string, '/slow');
      await waitFor(child.stderr, /slow request at pid \d+/, 'slow request arrived');
      child.process.kill('SIGTERM');
      assert.ok([replacement, workerPids[1]].includes(await slow), 'the slow request is answered');
      assert.equal(await child.exited, 0, child.stderr());
      assert.match(child.stderr(), /primary: stopping 2 workers/);
      const drained = [...child.stdout().matchAll(/drained by pid (\d+)/g)].map((match) => Number(match[1]));
      assert.deepEqual(drained.sort(), [replacement, workerPids[1] as number].sort(), 'every worker drained');
    } finally {
      child.process.kill('SIGKILL');
    }
  },
);

test(
  'SIGHUP to the whole process group (a terminal closed) drains every worker; nothing is left running',
  {
    timeout: 120_000,
  },
  async (t) => {
    if (process.platform === 'win32') return t.skip('no process groups on Windows');
    const child = primary(2, {}, true);
    const pgid = child.process.pid as number;
    try {
      await waitFor(child.stderr, /primary: 2 workers listen on one port/, 'start');
      process.kill(-pgid, 'SIGHUP');
      assert.equal(await child.exited, 0, child.stderr());
      assert.equal([...child.stdout().matchAll(/drained by pid/g)].length, 2, child.stdout());
      await waitFor(() => String(groupAlive(pgid)), /^false$/, 'every process of the group ends');
    } finally {
      if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
    }
  },
);

test('workers that keep dying young are replaced after a growing delay', async (t) => {
  if (process.platform === 'win32') return t.skip('signals are POSIX');
  // The primary's clock stands still, so both deaths are young (under 10 s of life) however long the
  // workers took to start on a busy machine.
  const child = primary(2, {}, false, true);
  try {
    const [, url] = await waitFor(child.stdout, /listening on (http:\/\/\S+)/, 'listening line');
    await waitFor(child.stderr, /primary: 2 workers listen on one port/, 'start');
    await request(`${url}/crash`, { reset: true }).catch(() => undefined);
    await waitFor(child.stderr, /died \(exit code 1\); a replacement starts in 0 ms/, 'first death');
    await waitFor(child.stderr, /replaces pid \d+ and listens/, 'first replacement');
    await request(`${url}/crash`, { reset: true }).catch(() => undefined);
    await waitFor(child.stderr, /died \(exit code 1\); a replacement starts in 100 ms/, 'second death');
    child.process.kill('SIGTERM');
    assert.equal(await child.exited, 0, child.stderr());
  } finally {
    child.process.kill('SIGKILL');
  }
});

test(
  'a worker that cannot start stops the primary with its exit code, without retrying',
  {
    timeout: 120_000,
  },
  async (t) => {
    if (process.platform === 'win32') return t.skip('signals are POSIX');
    const child = primary(2, { WORKER_FAIL: '3' });
    assert.equal(await child.exited, 3, child.stderr());
    assert.match(child.stderr(), /worker pid \d+ could not start \(exit code 3\); stopping/);
    assert.doesNotMatch(child.stderr(), /replacement/);
  },
);

test('replacements wait longer while workers keep dying young, up to a bound', () => {
  assert.equal(replacementDelayMs(1), 0, 'a worker that ran a while is replaced at once');
  assert.deepEqual([2, 3, 4, 5].map(replacementDelayMs), [100, 200, 400, 800]);
  assert.equal(replacementDelayMs(40), MAX_REPLACEMENT_DELAY_MS);
});

test('more than one worker needs PostgreSQL and Redis; the refusal says why and what to pass', () => {
  assert.equal(workersRefusal(1, describeBackends({})), undefined);
  const embedded = workersRefusal(2, describeBackends({ dataDir: './data' })) ?? '';
  assert.match(embedded, /one process owns the data directory/);
  assert.match(embedded, /--database-url \(PostgreSQL\) and --redis-url \(Redis\)/);
  assert.match(workersRefusal(2, describeBackends({ databaseUrl: 'postgres://x' })) ?? '', /rate limits on its own/);
  assert.equal(workersRefusal(4, describeBackends({ databaseUrl: 'postgres://x', redisUrl: 'redis://x' })), undefined);
});
