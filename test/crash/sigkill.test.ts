// docs/storage.md with real processes: the service is SIGKILLed while 100+ creates are in flight, once
// under each durability; after a restart every create that was answered 201 is there, with its id and
// body, and ids go on.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { runCli, waitForListening } from '../helpers/child.js';
import { listAllPets, type Pet, sendPetCreates } from '../helpers/pet-creates.js';

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
        const present = await listAllPets(apiUrl, agent, KEY);
        for (const [id, pet] of acknowledged)
          assert.deepEqual(present.get(id), pet, `seed ${seed}: pet ${id} acknowledged before cycle ${cycle}`);

        const floor = Math.max(0, ...present.keys());
        const creates = sendPetCreates({
          apiUrl,
          agent,
          key: KEY,
          connections: IN_FLIGHT,
          body: (sent) => ({ name: `crash ${cycle}-${sent}`, categoryId: 1 + Math.floor(random() * 1000) }),
          check: (pet, body) => [
            ...(pet.name !== body.name ? [`pet ${pet.id} has another body`] : []),
            ...(acknowledged.has(pet.id) ? [`id ${pet.id} handed out twice`] : []),
            ...(pet.id <= floor ? [`id ${pet.id} reused (ids at restart went up to ${floor})`] : []),
          ],
          acknowledged,
        });
        const before = acknowledged.size;
        // Let writes flow, then kill at a random moment once some were acknowledged.
        while (acknowledged.size - before < 200) await new Promise((resolve) => setTimeout(resolve, 10));
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 300)));
        child.process.kill('SIGKILL');
        await child.exited;
        await creates.stop();
        await agent.destroy();
        assert.deepEqual(creates.violations, [], `seed ${seed}, cycle ${cycle} (${durability})`);
      }

      const child = runCli(['serve', '--port', '0', '--data-dir', dataDir], ENV);
      const apiUrl = await waitForListening(child);
      const agent = new Agent();
      const present = await listAllPets(apiUrl, agent, KEY);
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
