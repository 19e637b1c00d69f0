// A backup carries the journal, and with it the webhook secrets: the backup file and every file a
// restore writes are owner-only (0600) in an owner-only directory, whatever the umask.
import { strict as assert } from 'node:assert';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { backupDataDir, restoreDataDir } from '../../src/backup/backup.js';
import { systemClock } from '../../src/core/clock.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import { newSubscription } from '../helpers/webhook-suite/fixtures.js';

const skip = process.platform === 'win32' ? 'file modes are POSIX' : false;
const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

test(
  'a backup of a store with webhook secrets, and its restore, are readable by their owner only',
  { skip },
  async (t) => {
    const root = await mkdtemp(join(tmpdir(), 'animal-store-backup-modes-'));
    t.after(() => rm(root, { recursive: true, force: true }));
    const previous = process.umask(0);
    try {
      const dataDir = join(root, 'data');
      const store = await openEmbeddedStore({
        dataDir,
        clock: systemClock,
        durability: 'always',
        fsyncIntervalMs: 1000,
        compactMinRecords: 1000,
        warn: () => {},
      });
      const subscription = newSubscription('key_a', ['pet.created']);
      await store.webhooks.addSubscription(subscription, 20);
      await store.close();
      const secret = subscription.secrets[0]?.secret as string;
      assert.ok(
        (await readFile(join(dataDir, 'animals.log'), 'utf8')).includes(secret),
        'the journal holds the secret',
      );
      assert.equal(await modeOf(join(dataDir, 'animals.log')), 0o600);

      const out = join(root, 'store.backup');
      await backupDataDir(dataDir, out);
      assert.equal(await modeOf(out), 0o600);
      const restored = join(root, 'restored');
      await restoreDataDir(out, restored);
      assert.equal(await modeOf(restored), 0o700);
      for (const name of await readdir(restored)) assert.equal(await modeOf(join(restored, name)), 0o600, name);
    } finally {
      process.umask(previous);
    }
  },
);
