// A child process for the crash tests of events: opens the embedded store of a data directory, makes
// sure one subscription to pet.created exists, then creates pets without pause, many at once, printing
// `created ID` once each create is acknowledged (its journal write resolved), until it is killed.
// Usage: node --import tsx test/helpers/event-writer.ts DATA_DIR DURABILITY OWNER
import { systemClock } from '../../src/core/clock.js';
import type { Durability } from '../../src/journal/journal.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import { newSubscription } from './webhook-suite/fixtures.js';

const IN_FLIGHT = 64;

const [dataDir, durability, owner] = process.argv.slice(2);
if (dataDir === undefined || durability === undefined || owner === undefined)
  throw new Error('usage: event-writer.ts DATA_DIR DURABILITY OWNER');
const store = await openEmbeddedStore({
  dataDir,
  clock: systemClock,
  durability: durability as Durability,
  fsyncIntervalMs: 50,
  compactMinRecords: Number.MAX_SAFE_INTEGER,
  warn: (line) => process.stderr.write(`${line}\n`),
});
const existing = store.webhooks.pageSubscriptions(owner, 0, 1);
if (existing.total === 0) await store.webhooks.addSubscription(newSubscription(owner, ['pet.created']), 20);
process.stdout.write('ready\n');
let sent = 0;
const writer = async (): Promise<void> => {
  for (;;) {
    const pet = await store.createPet(
      { name: `crash ${process.pid}-${sent++}`, categoryId: 1, status: 'available' },
      systemClock.now(),
    );
    process.stdout.write(`created ${pet.id}\n`);
  }
};
await Promise.all(Array.from({ length: IN_FLIGHT }, () => writer()));
