// A graceful stop under load. Every create answered 201 is on disk after the restart,
// no request hangs, and the process exits 0 within a bound.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { runCli, waitForListening } from '../helpers/child.js';

const KEY = 'graceful-stop-key-0123456789';
const ENV = { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` };
const STOP_BOUND_MS = 15_000;

test(
  'SIGTERM under load: answered creates are kept, nothing hangs, exit 0 within the bound',
  {
    timeout: 120_000,
  },
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-stop-'));
    try {
      const child = runCli(['serve', '--port', '0', '--data-dir', dataDir], ENV);
      const apiUrl = await waitForListening(child);
      const agent = new Agent({ connections: 64, headersTimeout: STOP_BOUND_MS, bodyTimeout: STOP_BOUND_MS });
      const created: number[] = [];
      const outcomes = new Map<string, number>();
      const unexpected: string[] = [];
      let stop = false;
      const worker = async (): Promise<void> => {
        while (!stop) {
          try {
            const response = await request(`${apiUrl}/pets`, {
              method: 'POST',
              dispatcher: agent,
              body: '{"name":"stop","categoryId":1}',
              headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            });
            const text = await response.body.text();
            outcomes.set(String(response.statusCode), (outcomes.get(String(response.statusCode)) ?? 0) + 1);
            if (response.statusCode === 201) created.push((JSON.parse(text) as { id: number }).id);
            else if (response.statusCode !== 503) unexpected.push(`${response.statusCode} ${text}`);
          } catch (error) {
            const code = (error as { code?: string }).code ?? 'error';
            outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
            if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') throw error;
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
      };
      const workers = Array.from({ length: 64 }, () => worker());
      while (created.length < 300) await new Promise((resolve) => setTimeout(resolve, 5));
      const stoppedAt = Date.now();
      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0);
      assert.ok(Date.now() - stoppedAt < STOP_BOUND_MS, 'the process exits within the bound');
      stop = true;
      await Promise.all(workers);
      await agent.destroy();
      assert.deepEqual(unexpected, [], 'only 201 or 503 while stopping');

      const again = runCli(['serve', '--port', '0', '--data-dir', dataDir], ENV);
      const againUrl = await waitForListening(again);
      const ids = new Set<number>();
      let path: string | undefined = '/pets?limit=100';
      while (path !== undefined) {
        const response = await request(`${againUrl}${path}`, { headers: { authorization: `Bearer ${KEY}` } });
        for (const pet of (await response.body.json()) as Array<{ id: number }>) ids.add(pet.id);
        const link = response.headers.link as string | undefined;
        path = link === undefined ? undefined : /^<\/v1([^>]+)>/.exec(link)?.[1];
      }
      for (const id of created)
        assert.ok(ids.has(id), `answered create ${id} is kept (${JSON.stringify([...outcomes])})`);
      again.process.kill('SIGTERM');
      assert.equal(await again.exited, 0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
