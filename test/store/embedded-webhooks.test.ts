// The WebhookStore contract on the embedded store: in memory, and on a journal in a temporary data
// directory (where a reopen replays the journal). The journal's own promises (the same state after a
// replay and after a compaction) are in embedded-webhooks-journal.test.ts.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/core/clock.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import type { Store } from '../../src/store/store.js';
import { webhookStoreSuite } from '../helpers/webhook-store-suite.js';

const open = (dataDir: string | undefined): Promise<Store> =>
  openEmbeddedStore({
    dataDir,
    clock: systemClock,
    durability: 'never',
    fsyncIntervalMs: 1000,
    compactMinRecords: 1000,
    warn: () => {},
  });

webhookStoreSuite('embedded store in memory', async () => {
  const store = await open(undefined);
  return { store, close: () => store.close() };
});

webhookStoreSuite('embedded store on a journal', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-webhooks-'));
  let store = await open(dataDir);
  return {
    get store() {
      return store;
    },
    async reopen() {
      await store.close();
      store = await open(dataDir);
      return store;
    },
    async close() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});
