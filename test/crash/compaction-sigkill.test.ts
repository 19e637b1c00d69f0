// docs/storage.md, "Compaction", with real processes: the service starts on a log that is half
// superseded records, so its first write starts a compaction whose snapshot is written in slices over
// many turns while creates go on; it is SIGKILLed while the new log is being written (the temporary
// file exists). After a restart every seeded pet and every create answered 201 is there, with its id
// and body, and ids go on. Each cycle kills at another moment of the compaction.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Agent, request } from 'undici';
import { encodeRecord } from '../../src/journal/log-format.js';
import { type Child, runCli, waitForListening } from '../helpers/child.js';
import { listAllPets, type Pet, sendPetCreates } from '../helpers/pet-creates.js';

const KEY = 'crash-test-key-0123456789';
const ENV = { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` };
const IN_FLIGHT = 64;
/** Pets in the seeded log, each written twice (the first record superseded): a compaction of a few hundred ms. */
const SEEDED_PETS = 40_000;
const CYCLES = 3;

const petJson = (id: number, status: string): string =>
  `{"id":${id},"name":"seeded ${id}","categoryId":1,"status":"${status}"}`;

/** A log of SEEDED_PETS pets, each first written pending and then sold: half of it is superseded. */
function seededLog(): string {
  const lines: string[] = [];
  for (let id = 1; id <= SEEDED_PETS; id++) lines.push(encodeRecord(`{"op":"pet","pet":${petJson(id, 'pending')}}`));
  for (let id = 1; id <= SEEDED_PETS; id++) lines.push(encodeRecord(`{"op":"pet","pet":${petJson(id, 'sold')}}`));
  return lines.join('');
}

const get = async (apiUrl: string, agent: Agent, path: string) => {
  const response = await request(`${apiUrl}${path}`, {
    headers: { authorization: `Bearer ${KEY}` },
    dispatcher: agent,
  });
  return { status: response.statusCode, headers: response.headers, body: await response.body.text() };
};

test(
  'a SIGKILL while a compaction writes its snapshot in slices loses no acknowledged create and no older record',
  { timeout: 180_000 },
  async () => {
    const log = seededLog();
    let killedMidCompaction = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-compaction-kill-'));
      let restarted: Child | undefined;
      try {
        await writeFile(join(dataDir, 'animals.log'), log);
        const args = ['serve', '--port', '0', '--data-dir', dataDir, '--compact-min-records', '1000'];
        const child = runCli(args, ENV);
        const apiUrl = await waitForListening(child);
        const agent = new Agent({ connections: IN_FLIGHT });
        const acknowledged = new Map<number, Pet>();
        const creates = sendPetCreates({
          apiUrl,
          agent,
          key: KEY,
          connections: IN_FLIGHT,
          body: (sent) => ({ name: `during ${cycle}-${sent}`, categoryId: 2 }),
          check: (pet) => (pet.id <= SEEDED_PETS ? [`id ${pet.id} reused`] : []),
          acknowledged,
        });
        // The first write starts the compaction; kill at a later moment of it each cycle.
        const temp = join(dataDir, 'animals.log.compacting');
        const deadline = Date.now() + 30_000;
        while (!existsSync(temp) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 1));
        await new Promise((resolve) => setTimeout(resolve, cycle * 40));
        if (existsSync(temp)) killedMidCompaction++;
        child.process.kill('SIGKILL');
        await child.exited;
        await creates.stop();
        await agent.destroy();
        assert.deepEqual(creates.violations, [], `cycle ${cycle}`);
        assert.ok(acknowledged.size > 0, `cycle ${cycle}: creates were answered during the compaction`);

        const again = runCli(['serve', '--port', '0', '--data-dir', dataDir], ENV);
        restarted = again;
        const againUrl = await waitForListening(again);
        const reader = new Agent();
        const seeded = await get(againUrl, reader, '/pets?status=sold&limit=1');
        assert.equal(seeded.headers['x-total-count'], String(SEEDED_PETS), `cycle ${cycle}: every seeded pet`);
        for (const id of [1, SEEDED_PETS / 2, SEEDED_PETS]) {
          const pet = await get(againUrl, reader, `/pets/${id}`);
          assert.equal(pet.body, petJson(id, 'sold'), `cycle ${cycle}: seeded pet ${id} in its last state`);
        }
        const present = await listAllPets(againUrl, reader, KEY);
        for (const [id, pet] of acknowledged)
          assert.deepEqual(present.get(id), pet, `cycle ${cycle}: acknowledged pet ${id} survived, unchanged`);
        again.process.kill('SIGTERM');
        assert.equal(await again.exited, 0);
        await reader.close();
      } finally {
        if (restarted?.process.exitCode === null) {
          restarted.process.kill('SIGKILL');
          await restarted.exited;
        }
        await rm(dataDir, { recursive: true, force: true });
      }
    }
    assert.ok(killedMidCompaction > 0, 'at least one kill came while the new log was being written');
  },
);
