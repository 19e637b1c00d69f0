// Online backup and restore with real processes: a backup taken while creates pour in holds every pet
// acknowledged before it began; backups taken while the journal is compacted again and again are each
// whole; a restored directory serves them; a damaged or cut backup and a non-empty target are refused.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Agent, request } from 'undici';
import { systemClock } from '../../src/core/clock.js';
import { createService } from '../../src/service/service.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';
import { type Child, runCli, waitForListening } from '../helpers/child.js';

const KEY = 'backup-test-key-0123456789';
const ENV = { ANIMAL_STORE_KEYS: `${KEY}:enterprise:100000000:1000000000` };
const agent = new Agent({ connections: 64 });
const dirs: string[] = [];
const children: Child[] = [];
after(async () => {
  for (const child of children) child.process.kill('SIGKILL');
  await Promise.all(children.map((child) => child.exited));
  await agent.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-backup-'));
  dirs.push(dir);
  return dir;
}

async function serve(dataDir: string, extra: string[] = []): Promise<{ child: Child; url: string }> {
  const child = runCli(['serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...extra], ENV);
  children.push(child);
  return { child, url: await waitForListening(child) };
}

async function send(apiUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
  const response = await request(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: agent,
  });
  return { status: response.statusCode, json: (await response.body.json()) as Record<string, unknown> };
}

/** Every pet of the service at `apiUrl`, by id, following the next links. */
async function listAll(apiUrl: string): Promise<Map<number, Record<string, unknown>>> {
  const pets = new Map<number, Record<string, unknown>>();
  let next: string | undefined = `${apiUrl}/pets?limit=100`;
  while (next !== undefined) {
    const page: string = next;
    const response = await request(page, { headers: { authorization: `Bearer ${KEY}` }, dispatcher: agent });
    assert.equal(response.statusCode, 200);
    for (const pet of (await response.body.json()) as Array<Record<string, unknown>>) pets.set(pet.id as number, pet);
    const link = response.headers['x-next'];
    next = typeof link === 'string' ? new URL(link, apiUrl).href : undefined;
  }
  return pets;
}

/** Runs the CLI to its end. */
async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = runCli(args);
  const code = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** The most creates the write load makes while a backup runs. */
const MAX_CREATES_UNDER_BACKUP = 3000;

test(
  'a backup under a write load holds every create acknowledged before it began, and restores',
  { timeout: 120_000 },
  async () => {
    const dataDir = await tempDir();
    const out = join(await tempDir(), 'store.backup');
    const { child, url } = await serve(dataDir, ['--durability', 'always']);
    const acknowledged = new Map<number, Record<string, unknown>>();
    let stop = false;
    // The load runs while the backup does, up to a bound: on a busy machine the backup command takes
    // longer to start, and the work of this test must not grow with it.
    const load = async (n: number): Promise<void> => {
      for (let i = 0; !stop && acknowledged.size < MAX_CREATES_UNDER_BACKUP; i++) {
        const name = `b ${n}-${i}`;
        const answer = await send(url, 'POST', '/pets', { name, categoryId: 2 });
        if (answer.status === 201) acknowledged.set(answer.json.id as number, answer.json);
      }
    };
    const workers = Array.from({ length: 16 }, (_, n) => load(n));
    while (acknowledged.size < 300) await new Promise((resolve) => setTimeout(resolve, 10));
    const before = new Map(acknowledged);
    const backup = await cli(['backup', '--data-dir', dataDir, '--out', out]);
    stop = true;
    await Promise.all(workers);
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /^Backed up \d+ records and keys\.json|cursor\.secret/);

    const verified = await cli(['backup', '--verify', out]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /is sound: \d+ records/);

    const restored = join(await tempDir(), 'restored');
    const restore = await cli(['restore', '--in', out, '--data-dir', restored]);
    assert.equal(restore.code, 0, restore.stderr);
    child.process.kill('SIGTERM');
    await child.exited;
    const again = await serve(restored);
    const restoredPets = await listAll(again.url);
    for (const [id, pet] of before)
      assert.deepEqual(restoredPets.get(id), pet, `pet ${id} was acknowledged before the backup began`);
    // Nothing torn and nothing invented: every restored pet is one the service acknowledged, as it was
    // acknowledged (creates that began after the backup may or may not be in it).
    for (const [id, pet] of restoredPets) assert.deepEqual(pet, acknowledged.get(id), `restored pet ${id}`);
    assert.ok(restoredPets.size >= before.size);
    assert.equal(again.child.stderr(), '', 'the restored journal opens with no torn record to cut');
  },
);

// Each round starts two CLI processes (the backup and its check), which take seconds each on a busy
// two-core machine: a clean run there took 115 s, so the limit stands well above it.
test('backups taken while the journal is compacted again and again are each whole', { timeout: 300_000 }, async () => {
  const dataDir = await tempDir();
  // The store runs in this process, so that the events the churn records can be purged as it goes (as
  // the retention job does once they are past retention): a log whose records still carry retained
  // events has nothing to compact. The backups are taken by other processes, as an operator would.
  const store = await openEmbeddedStore({
    dataDir,
    clock: systemClock,
    durability: 'never',
    fsyncIntervalMs: 1000,
    compactMinRecords: 20,
    warn: () => {},
  });
  const service = createService(store, systemClock);
  const pets: number[] = [];
  for (let i = 0; i < 20; i++) pets.push((await service.pets.create({ name: `c${i}`, categoryId: 1 })).id);
  // Orders placed and cancelled over and over: each cancel supersedes records, so compactions follow.
  let stop = false;
  let moves = 0;
  const churn = async (petId: number): Promise<void> => {
    while (!stop) {
      const placed = await service.orders.place({ petId });
      await service.orders.cancel(placed.id);
      await store.webhooks.purge(systemClock.now() + 1);
      moves++;
    }
  };
  const workers = pets.map((petId) => churn(petId));
  const backupDir = await tempDir();
  // A compaction renames a new journal into place: its inode number changes with each one.
  const journalInodes = new Set<number>();
  // A failed round still stops the churn and closes the store, or the test's process would never end.
  const stopChurn = async (): Promise<void> => {
    stop = true;
    await Promise.allSettled(workers);
    await store.close();
  };
  try {
    for (let round = 0; round < 6; round++) {
      while (moves < (round + 1) * 200) await new Promise((resolve) => setTimeout(resolve, 5));
      const out = join(backupDir, `round-${round}.backup`);
      journalInodes.add((await stat(join(dataDir, 'animals.log'))).ino);
      const backup = await cli(['backup', '--data-dir', dataDir, '--out', out]);
      journalInodes.add((await stat(join(dataDir, 'animals.log'))).ino);
      assert.equal(backup.code, 0, backup.stderr);
      const verified = await cli(['backup', '--verify', out]);
      assert.equal(verified.code, 0, `round ${round}: ${verified.stderr}`);
    }
  } finally {
    await stopChurn();
  }
  assert.ok(journalInodes.size > 1, 'the journal was compacted while the backups were taken');
  const restored = join(await tempDir(), 'restored');
  assert.equal((await cli(['restore', '--in', join(backupDir, 'round-5.backup'), '--data-dir', restored])).code, 0);
  const again = await serve(restored);
  const listed = await request(`${again.url}/pets?limit=100`, {
    headers: { authorization: `Bearer ${KEY}` },
    dispatcher: agent,
  });
  const ids = ((await listed.body.json()) as Array<{ id: number }>).map((pet) => pet.id);
  assert.deepEqual(ids, pets, 'every pet created before the backups is in the last one');
});

test(
  'a cut or altered backup, and a non-empty target, are refused with one line and nothing written',
  // A service and a CLI process for each step (a backup, then a check and a restore of each damaged
  // copy): 47 s in a clean run on a busy two-core machine.
  { timeout: 180_000 },
  async () => {
    const dataDir = await tempDir();
    const { url, child } = await serve(dataDir);
    for (let i = 0; i < 5; i++) await send(url, 'POST', '/pets', { name: `d${i}`, categoryId: 1 });
    const backupDir = await tempDir();
    const out = join(backupDir, 'good.backup');
    assert.equal((await cli(['backup', '--data-dir', dataDir, '--out', out])).code, 0);
    child.process.kill('SIGTERM');
    const bytes = await readFile(out);

    const cut = join(backupDir, 'cut.backup');
    await writeFile(cut, bytes.subarray(0, bytes.length - 100));
    const altered = join(backupDir, 'altered.backup');
    const flipped = Buffer.from(bytes);
    flipped[Math.floor(bytes.length / 2)] = (flipped[Math.floor(bytes.length / 2)] as number) ^ 0x01;
    await writeFile(altered, flipped);
    for (const bad of [cut, altered]) {
      const verify = await cli(['backup', '--verify', bad]);
      assert.equal(verify.code, 1);
      assert.match(verify.stderr, /cannot be used: .*(cut short|checksum)/);
      assert.equal(verify.stderr.trim().split('\n').length, 1);
      const target = join(await tempDir(), 'target');
      const restore = await cli(['restore', '--in', bad, '--data-dir', target]);
      assert.equal(restore.code, 1);
      await assert.rejects(readFile(join(target, 'animals.log')), 'nothing was restored');
    }
    const notABackup = join(backupDir, 'notes.txt');
    await writeFile(notABackup, 'hello\n');
    assert.match((await cli(['backup', '--verify', notABackup])).stderr, /not an animal-store backup/);
    const otherVersion = join(backupDir, 'other-version.backup');
    await writeFile(otherVersion, Buffer.concat([Buffer.from('animal-store backup 2'), bytes.subarray(21)]));
    const newer = await cli(['backup', '--verify', otherVersion]);
    assert.equal(newer.code, 1);
    assert.match(
      newer.stderr,
      /^.*other-version\.backup cannot be used: .*another format version \("animal-store backup 2"\)/,
    );
    assert.equal(newer.stderr.trim().split('\n').length, 1);

    const full = join(await tempDir(), 'full');
    await mkdir(full);
    await writeFile(join(full, 'something'), 'x');
    const refused = await cli(['restore', '--in', out, '--data-dir', full]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not empty; restore into a new directory/);
    const usage = await cli(['restore', '--in', out]);
    assert.equal(usage.code, 2);

    // A backup into a directory that does not exist says so, not with the temporary file's errno text.
    const nowhere = join(await tempDir(), 'no-such-dir', 'b.backup');
    const unwritable = await cli(['backup', '--data-dir', dataDir, '--out', nowhere]);
    assert.equal(unwritable.code, 1);
    assert.equal(
      unwritable.stderr,
      `animal-store: could not write the backup to ${nowhere}: its directory does not exist\n`,
    );
  },
);
