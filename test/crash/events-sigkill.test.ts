// Events are written with the change they describe (docs/events.md), with real processes: a child
// creates pets as fast as it can while a subscription to pet.created exists and is SIGKILLed, once under
// each durability; after the last restart every create it acknowledged has its pet.created event, with
// the pet as data, and a pending delivery to the subscription; no event or delivery exists for a pet
// that was not created, none is doubled, and event ids are never handed out twice.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { systemClock } from '../../src/core/clock.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DURABILITIES = ['always', 'interval', 'never'] as const;
/** The owner of the one subscription the writer makes. */
const CRASH_OWNER = 'key_crash';
/** Acknowledged creates to wait for in each cycle before the kill. */
const ACKNOWLEDGED_PER_CYCLE = 300;

/** Runs the writer until it has acknowledged enough creates and then some, kills it, and returns the ids it acknowledged. */
async function writeUntilKilled(dataDir: string, durability: string, delayMs: number): Promise<number[]> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/helpers/event-writer.ts', dataDir, durability, CRASH_OWNER],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const acknowledged: number[] = [];
  let stderr = '';
  let pending = '';
  let killing: Promise<void> | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('created ')) acknowledged.push(Number(line.slice(8)));
      if (acknowledged.length >= ACKNOWLEDGED_PER_CYCLE && killing === undefined) {
        killing = new Promise<void>((done) =>
          setTimeout(() => {
            child.kill('SIGKILL');
            done();
          }, delayMs),
        );
        resolve();
      }
    });
    void exited.then((code) => reject(new Error(`the writer exited (${code}) before it was killed: ${stderr}`)));
  });
  await killing;
  assert.equal(await exited, null, 'killed by the signal');
  // Lines the pipe still held when the process died were written before it died: they count.
  for (const line of pending.split('\n')) if (line.startsWith('created ')) acknowledged.push(Number(line.slice(8)));
  return acknowledged;
}

test(
  'every create acknowledged before a SIGKILL has its event and its pending delivery after a restart, and nothing else does',
  { timeout: 180_000 },
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-events-crash-'));
    const acknowledged = new Set<number>();
    try {
      for (const [cycle, durability] of DURABILITIES.entries()) {
        for (const id of await writeUntilKilled(dataDir, durability, 20 + 40 * cycle)) {
          assert.ok(!acknowledged.has(id), `pet id ${id} acknowledged twice`);
          acknowledged.add(id);
        }
      }
      const store = await openEmbeddedStore({
        dataDir,
        clock: systemClock,
        durability: 'always',
        fsyncIntervalMs: 1000,
        compactMinRecords: Number.MAX_SAFE_INTEGER,
        warn: () => {},
      });
      try {
        const [subscription] = store.webhooks.pageSubscriptions(CRASH_OWNER, 0, 10).items;
        assert.ok(subscription !== undefined, 'the subscription survived');
        const { events } = store.state.webhooks;
        const entry = store.state.webhooks.subscriptions.get(subscription.id);
        const eventOfPet = new Map<number, number>();
        for (const event of events.values()) {
          assert.equal(event.type, 'pet.created');
          const petId = (JSON.parse(event.dataJson) as { id: number }).id;
          assert.equal(store.getPet(petId)?.json, event.dataJson, `event ${event.seq} is its pet as it was created`);
          assert.ok(!eventOfPet.has(petId), `pet ${petId} has one event, not two`);
          eventOfPet.set(petId, event.seq);
          assert.notEqual(entry?.queue.find(event.seq), -1, `event ${event.seq} is pending for the subscription`);
        }
        assert.equal(
          eventOfPet.size,
          store.state.pets.count(),
          'every pet has its event, and no event is of a pet that is not there',
        );
        assert.equal(entry?.queue.size, events.size, 'one pending delivery an event, none invented');
        const listed = store.webhooks.pageEvents({
          type: undefined,
          after: undefined,
          limit: 1_000_000,
          sinceMs: 0,
        });
        assert.equal(listed.items.length, events.size);
        assert.equal(new Set(listed.items.map((event) => event.id)).size, listed.items.length, 'no event id twice');
        for (const id of acknowledged) assert.ok(eventOfPet.has(id), `acknowledged pet ${id} has its event`);
        assert.ok(acknowledged.size >= ACKNOWLEDGED_PER_CYCLE * DURABILITIES.length);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
);
