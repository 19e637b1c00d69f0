// docs/storage.md with real processes: the service is SIGKILLed while 100+ creates are in flight, once
// under each durability; after a restart every create that was answered 201 is there, with its id and
// body, and ids go on.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, type Dispatcher, request } from 'undici';
import { runCli, waitForListening } from '../helpers/child.js';

const KEY = 'crash-test-key-0123456789';
const ENV = { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` };
const IN_FLIGHT = 128;
/** One cycle per durability: a process crash loses nothing acknowledged under any of them (the bytes are in the kernel). */
const DURABILITIES = ['always', 'interval', 'never'] as const;

/** A small seeded PRNG (mulberry32), so a failing run can be repeated. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

async function listAll(apiUrl: string, agent: Agent): Promise<Map<number, Pet>> {
  const pets = new Map<number, Pet>();
  let path: string | undefined = '/pets?limit=100';
  while (path !== undefined) {
    const response: Dispatcher.ResponseData = await request(`${apiUrl}${path.replace(/^\/v1/, '')}`, {
      headers: { authorization: `Bearer ${KEY}` },
      dispatcher: agent,
    });
    assert.equal(response.statusCode, 200);
    for (const pet of (await response.body.json()) as Pet[]) pets.set(pet.id, pet);
    const link = response.headers.link as string | undefined;
    path = link === undefined ? undefined : /^<([^>]+)>/.exec(link)?.[1];
  }
  return pets;
}

test(
  'no create answered 201 is lost when the service is SIGKILLed under load, under every durability, and ids are never reused',
  {
    timeout: 120_000,
  },
  async () => {
    const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
    const random = prng(seed);
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-crash-'));
    const acknowledged = new Map<number, Pet>();
    try {
      for (const [cycle, durability] of DURABILITIES.entries()) {
        const child = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--durability', durability], ENV);
        const apiUrl = await waitForListening(child);
        const agent = new Agent({ connections: IN_FLIGHT, keepAliveTimeout: 10_000 });

        // Everything acknowledged before this start is still there, unchanged.
        const present = await listAll(apiUrl, agent);
        for (const [id, pet] of acknowledged)
          assert.deepEqual(present.get(id), pet, `seed ${seed}: pet ${id} acknowledged before cycle ${cycle}`);

        const floor = Math.max(0, ...present.keys());
        const violations: string[] = [];
        let stop = false;
        let sent = 0;
        const worker = async (): Promise<void> => {
          while (!stop) {
            const body = { name: `crash ${cycle}-${sent++}`, categoryId: 1 + Math.floor(random() * 1000) };
            let status: number;
            let text: string;
            try {
              const response = await request(`${apiUrl}/pets`, {
                method: 'POST',
                dispatcher: agent,
                body: JSON.stringify(body),
                headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
              });
              text = await response.body.text();
              status = response.statusCode;
            } catch {
              return; // The connection died with the process.
            }
            if (status !== 201) {
              violations.push(`unexpected ${status}: ${text}`);
              continue;
            }
            const pet = JSON.parse(text) as Pet;
            if (pet.name !== body.name) violations.push(`pet ${pet.id} has another body`);
            if (acknowledged.has(pet.id)) violations.push(`id ${pet.id} handed out twice`);
            if (pet.id <= floor) violations.push(`id ${pet.id} reused (ids at restart went up to ${floor})`);
            acknowledged.set(pet.id, pet);
          }
        };
        const workers = Array.from({ length: IN_FLIGHT }, () => worker());
        const before = acknowledged.size;
        // Let writes flow, then kill at a random moment once some were acknowledged.
        while (acknowledged.size - before < 200) await new Promise((resolve) => setTimeout(resolve, 10));
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 300)));
        child.process.kill('SIGKILL');
        await child.exited;
        stop = true;
        await Promise.all(workers);
        await agent.destroy();
        assert.deepEqual(violations, [], `seed ${seed}, cycle ${cycle} (${durability})`);
      }

      const child = runCli(['serve', '--port', '0', '--data-dir', dataDir], ENV);
      const apiUrl = await waitForListening(child);
      const agent = new Agent();
      const present = await listAll(apiUrl, agent);
      for (const [id, pet] of acknowledged)
        assert.deepEqual(present.get(id), pet, `seed ${seed}: acknowledged pet ${id} survived`);
      const response = await request(`${apiUrl}/pets`, {
        method: 'POST',
        dispatcher: agent,
        body: '{"name":"after","categoryId":1}',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      });
      const next = (await response.body.json()) as Pet;
      assert.equal(response.statusCode, 201);
      assert.ok(
        next.id > Math.max(...present.keys()),
        `seed ${seed}: the next id ${next.id} continues after every id written`,
      );
      child.process.kill('SIGTERM');
      assert.equal(await child.exited, 0);
      await agent.close();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
