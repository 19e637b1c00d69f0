// The database stopped and started under load, on a server of the test's own: requests get 503
// `unavailable` with Retry-After (never a hang, never a 500), /readyz says not ready, and once the
// server is back the service serves again by itself, without a restart, having lost nothing it acknowledged.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { runCli, waitForListening } from '../helpers/child.js';
import { SERVICES_REQUIRED } from '../helpers/postgres.js';
import { privatePostgresSkipReason, startPrivatePostgres } from '../helpers/private-postgres.js';

const KEY = 'postgres-outage-key-0123456789';
const reason = privatePostgresSkipReason();
if (reason !== undefined && SERVICES_REQUIRED) throw new Error(`${reason}; ANIMAL_STORE_TEST_SERVICES=required`);

test(
  'the database stopped and started under load: 503 with Retry-After meanwhile, then service again without a restart',
  { skip: reason, timeout: 120_000 },
  async () => {
    const server = await startPrivatePostgres();
    const agent = new Agent({ connections: 64 });
    const dataDir = mkdtempSync(join(tmpdir(), 'animal-store-pg-outage-'));
    const service = runCli(
      ['serve', '--port', '0', '--database-url', server.url, '--data-dir', dataDir, '--log-level', 'warn'],
      {
        ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000`,
      },
    );
    try {
      const apiUrl = await waitForListening(service);
      const origin = new URL(apiUrl).origin;
      const send = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
        const response = await request(`${apiUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${KEY}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          dispatcher: agent,
        });
        const text = await response.body.text();
        return { status: response.statusCode, headers: response.headers, json: JSON.parse(text) as unknown };
      };
      const readyz = async () => (await request(`${origin}/readyz`, { dispatcher: agent })).statusCode;

      const statuses = new Map<number, number>();
      const acknowledged = new Map<number, string>();
      let phase: 'before' | 'down' | 'after' = 'before';
      let stop = false;
      const worker = async (n: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          const name = `${phase} ${n}-${i}`;
          const answer =
            i % 2 === 0 ? await send('POST', '/pets', { name, categoryId: 1 }) : await send('GET', '/pets?limit=10');
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 201) acknowledged.set((answer.json as { id: number }).id, name);
          if (answer.status === 503) {
            assert.equal((answer.json as { code: string }).code, 'unavailable');
            assert.match(String(answer.headers['retry-after']), /^[1-9][0-9]*$/);
          }
          if (answer.status === 503) await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      const workers = Array.from({ length: 16 }, (_, n) => worker(n));
      while (acknowledged.size < 100) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(await readyz(), 200);

      await server.stop();
      phase = 'down';
      const before503 = statuses.get(503) ?? 0;
      while ((statuses.get(503) ?? 0) < before503 + 20) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(await readyz(), 503);

      await server.start();
      phase = 'after';
      const created = acknowledged.size;
      while (acknowledged.size < created + 100) await new Promise((resolve) => setTimeout(resolve, 10));
      stop = true;
      await Promise.all(workers);
      assert.equal(await readyz(), 200);
      const unexpected = [...statuses.keys()].filter((status) => ![200, 201, 503].includes(status));
      assert.deepEqual(unexpected, [], `only 200, 201 and 503: ${JSON.stringify([...statuses])}`);

      for (const [id, name] of acknowledged) {
        const found = await send('GET', `/pets/${id}`);
        assert.equal(found.status, 200, `pet ${id} was acknowledged and is gone`);
        assert.equal((found.json as { name: string }).name, name);
      }
      assert.match(service.stderr(), /cannot be reached/);
      assert.match(service.stderr(), /answers again/);
    } finally {
      service.process.kill('SIGTERM');
      await service.exited;
      await agent.close();
      await server.remove();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
);
