// The backends check's probe of PostgreSQL keeps the server processes of its database on the CPUs it
// is given, as connections come and go: a pool opens new ones when a round starts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { test } from 'node:test';
import pg from 'pg';
import { hasTaskset } from '../../bench/pinning.js';
import { postgresProbe } from '../../bench/server-cpu.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';

const postgresSkip = await postgresSkipReason();
const tasksetSkip = !hasTaskset()
  ? 'taskset is not installed'
  : availableParallelism() < 2
    ? 'one CPU: nothing to keep a process off'
    : undefined;

/** The CPUs a process may run on, as /proc lists them (`0-1`, `1`). */
function allowedCpus(pid: number): string | undefined {
  return /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
}

test(
  'a PostgreSQL probe keeps each server process of its database on the CPUs given, also one that connects later',
  { skip: postgresSkip ?? tasksetSkip },
  async () => {
    const database = await createTestDatabase();
    const warnings: string[] = [];
    const probe = await postgresProbe(database.url, { cpus: '1', warn: (line) => warnings.push(line) });
    const client = new pg.Client({ connectionString: database.url });
    try {
      await client.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const pid = rows[0]?.pid as number;
      // Unpinned at first (the server's processes start on every CPU), pinned within a few polls; the
      // wait allows fifty polls, so that a busy machine's slow query does not fail the test.
      let cpus = allowedCpus(pid);
      for (let tries = 0; cpus !== '1' && tries < 250; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        cpus = allowedCpus(pid);
      }
      assert.equal(cpus, '1');
      const reading = await probe.read();
      assert.ok(reading?.has(pid), 'the later connection is measured too');
      assert.deepEqual(warnings, []);
    } finally {
      await client.end();
      await probe.close();
      await database.drop();
    }
  },
);
