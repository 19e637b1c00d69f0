// `animal-store serve --workers`: refused with the embedded log, in one line that says why and what to
// use; and the real service run as a cluster worker (under the primary of src/cli/cluster.ts): a worker
// killed with SIGKILL is replaced, which takes over the data directory with every answered write, and
// SIGTERM to the primary drains it and releases the lock.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { type Child, runCli, runClusterPrimary, waitForMatch } from '../helpers/child.js';
import { freePort } from '../helpers/ports.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const KEY = 'workers-test-key-0123456789';

async function refused(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  const child = runCli(args, env);
  assert.equal(await child.exited, 2, child.stderr());
  const lines = child.stderr().trimEnd().split('\n');
  assert.equal(lines.length, 1, child.stderr());
  return lines[0] as string;
}

test('more than one worker on the embedded log is refused in one line, exit 2, and nothing is created', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'animal-store-workers-'));
  try {
    const dataDir = join(parent, 'data');
    const line = await refused(['serve', '--port', '0', '--data-dir', dataDir, '--workers', '2']);
    assert.match(line, /^animal-store: --workers 2 needs a store and rate limits shared by every process/);
    assert.match(line, /one process owns the data directory and its log/);
    assert.match(line, /pass --database-url \(PostgreSQL\) and --redis-url \(Redis\), or use --workers 1$/);
    assert.ok(!existsSync(dataDir), 'no data directory was created');
    assert.match(
      await refused(['serve', '--port', '0', '--data-dir', dataDir], { ANIMAL_STORE_WORKERS: '3' }),
      /--workers 3 needs/,
    );
    if (availableParallelism() > 1)
      assert.match(
        await refused(['serve', '--port', '0', '--data-dir', dataDir, '--workers', 'auto']),
        new RegExp(`--workers ${availableParallelism()} needs`),
      );
    assert.match(await refused(['serve', '--workers', 'two']), /--workers must be a whole number or auto, not "two"/);
    assert.match(
      await refused(['serve', '--workers', '0']),
      /--workers must be a whole number from 1 to 1024, not "0"/,
    );
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

/** The real service as the one worker of a cluster primary. */
function servedByPrimary(dataDir: string, port: number): Child {
  const config = { workers: 1, exec: CLI, args: ['serve', '--port', String(port), '--data-dir', dataDir] };
  return runClusterPrimary(config, { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` });
}

test(
  'the service as a worker: SIGKILL is replaced with every answered write kept; SIGTERM drains and releases the lock',
  {
    timeout: 120_000,
  },
  async (t) => {
    if (process.platform === 'win32') return t.skip('signals are POSIX');
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-worker-'));
    // A port of its own: when the only worker dies the port closes, and a replacement told port 0 would get another.
    const child = servedByPrimary(dataDir, await freePort());
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    try {
      const [, apiUrl] = await waitForMatch(child.stdout, /animal-store listening on (http:\/\/\S+)/);
      const [, pid] = await waitForMatch(child.stderr, /primary: 1 worker listens on one port: pids (\d+)/);
      const created: number[] = [];
      for (let index = 0; index < 20; index += 1) {
        const response = await request(`${apiUrl}/pets`, {
          method: 'POST',
          headers,
          body: `{"name":"w${index}","categoryId":1}`,
        });
        assert.equal(response.statusCode, 201);
        created.push(((await response.body.json()) as { id: number }).id);
      }
      process.kill(Number(pid), 'SIGKILL');
      await waitForMatch(child.stderr, new RegExp(`worker pid ${pid} died \\(SIGKILL\\)`));
      await waitForMatch(child.stderr, new RegExp(`worker pid \\d+ replaces pid ${pid} and listens`));
      assert.match(child.stderr(), /taking over a stale lock left by pid \d+/, 'the replacement took over the lock');
      const response = await request(`${apiUrl}/pets?limit=100`, { headers });
      const ids = ((await response.body.json()) as Array<{ id: number }>).map((pet) => pet.id);
      for (const id of created) assert.ok(ids.includes(id), `answered create ${id} is kept`);

      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0, child.stderr());
      assert.match(child.stdout(), /animal-store worker pid \d+ stopped: 0 requests drained, data saved/);
      assert.ok(!existsSync(join(dataDir, 'LOCK')), 'the lock is released');
    } finally {
      child.process.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
