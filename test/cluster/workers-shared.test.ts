// `--workers 2` on PostgreSQL and Redis: two processes serve one port; a free key gets its 60 requests a
// minute between them, not 60 each; a worker killed with SIGKILL under a write load is replaced, and
// every create that was answered 201 is kept.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { runCli, waitForMatch } from '../helpers/child.js';
import { freePort } from '../helpers/ports.js';
import { createTestDatabase, postgresSkipReason } from '../helpers/postgres.js';
import { freshPrefix, redisSkipReason, TEST_REDIS_URL } from '../helpers/redis.js';

const KEY = 'workers-shared-key-0123456789';
/** A key of 60 a minute and 60 a day: no token comes back while a busy machine sends its requests. */
const FREE_KEY = 'workers-shared-free-0123456789';
const skip = (await postgresSkipReason()) ?? (await redisSkipReason());
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
before(async () => {
  if (skip === undefined) database = await createTestDatabase();
});
after(async () => {
  await database?.drop();
});

/** Waits until `done()` holds, checking every 10 ms; fails naming `what` after `timeoutMs`. */
async function waitUntil(done: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test(
  'two workers on PostgreSQL and Redis: limits shared, a SIGKILLed worker replaced, no answered create lost',
  { skip, timeout: 120_000 },
  async () => {
    const port = await freePort();
    const child = runCli(
      [
        'serve',
        '--workers',
        '2',
        '--port',
        String(port),
        '--database-url',
        (database as { url: string }).url,
        '--redis-url',
        TEST_REDIS_URL,
        '--redis-prefix',
        freshPrefix(),
      ],
      { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000,${FREE_KEY}:enterprise:60:60` },
    );
    // The primary's lines: information on stdout (JSON lines), warnings on stderr.
    const output = (): string => child.stdout() + child.stderr();
    // Fresh connections for each request, so the kernel deals them to both workers.
    const agent = new Agent({ pipelining: 0 });
    // A connection the primary was handing to the victim as it died is never answered: node:cluster's
    // round-robin primary keeps it open, waiting for a reply that cannot come. Such a request ends
    // at these timeouts, as a request that was never answered (undici's defaults are 300 s).
    const loadAgent = new Agent({ headersTimeout: 10_000, bodyTimeout: 10_000 });
    try {
      const [, apiUrl] = await waitForMatch(child.stdout, /animal-store listening on (http:\/\/\S+)/);
      const [, pids] = await waitForMatch(output, /2 workers listen on one port: pids (\d+, \d+)/);
      const [victim] = (pids as string).split(', ').map(Number);

      const statuses: number[] = [];
      for (let i = 0; i < 62; i++) {
        const response = await request(`${apiUrl}/pets`, {
          headers: { authorization: `Bearer ${FREE_KEY}` },
          dispatcher: agent,
        });
        await response.body.dump();
        statuses.push(response.statusCode);
      }
      assert.deepEqual(
        statuses.filter((status) => status === 200).length,
        60,
        'a key of 60 a minute gets 60 in all, not 60 a worker',
      );

      const acknowledged = new Map<number, string>();
      let stop = false;
      const load = async (n: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          const name = `w ${n}-${i}`;
          try {
            const response = await request(`${apiUrl}/pets`, {
              method: 'POST',
              headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name, categoryId: 1 }),
              dispatcher: loadAgent,
            });
            const body = (await response.body.json()) as { id: number };
            if (response.statusCode === 201) acknowledged.set(body.id, name);
          } catch {
            // A connection cut by the kill: that request was never answered, so nothing was promised.
          }
        }
      };
      const workers = Array.from({ length: 16 }, (_, n) => load(n));
      await waitUntil(() => acknowledged.size >= 200, '200 creates answered 201');
      process.kill(victim as number, 'SIGKILL');
      await waitForMatch(output, new RegExp(`worker pid ${victim} died \\(SIGKILL\\)`));
      await waitForMatch(output, new RegExp(`worker pid \\d+ replaces pid ${victim} and listens`));
      const afterKill = acknowledged.size;
      await waitUntil(() => acknowledged.size >= afterKill + 100, '100 more creates answered 201 after the kill');
      stop = true;
      await Promise.all(workers);

      for (const [id, name] of acknowledged) {
        const response = await request(`${apiUrl}/pets/${id}`, { headers: { authorization: `Bearer ${KEY}` } });
        assert.equal(response.statusCode, 200, `pet ${id} was answered 201 and is gone`);
        assert.equal(((await response.body.json()) as { name: string }).name, name);
      }
      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0, child.stderr());
      assert.match(child.stdout(), /all 2 workers drained/);
    } finally {
      child.process.kill('SIGKILL');
      await agent.close();
      await loadAgent.close();
    }
  },
);
