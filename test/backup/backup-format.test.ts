// The backup file on its own, without a service: a snapshot leaves a torn last record out; every cut
// and every flipped bit of a backup is refused, as is another format version and a torn journal; a
// sound one decodes to what was encoded and restores to the same files.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BackupError, decodeBackup, encodeBackup } from '../../src/backup/backup-format.js';
import { readBackup, restoreDataDir, snapshotDataDir } from '../../src/backup/backup.js';
import { encodeRecord } from '../../src/journal/log-format.js';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-backup-format-'));
  dirs.push(dir);
  return dir;
}

const RECORDS = ['{"t":"pet","id":1}', '{"t":"pet","id":2}', '{"t":"pet","id":3}'].map(encodeRecord).join('');
const TAKEN_AT = new Date('2026-05-01T03:00:00.000Z');

function smallBackup(): Buffer {
  return encodeBackup({
    createdAt: TAKEN_AT.toISOString(),
    files: [
      { name: 'animals.log', bytes: Buffer.from(RECORDS) },
      { name: 'cursor.secret', bytes: Buffer.from('0123456789abcdef') },
    ],
  });
}

test('a snapshot holds every whole record and leaves a torn last one out', async () => {
  const dataDir = await tempDir();
  const torn = encodeRecord('{"t":"pet","id":4}').slice(0, 10);
  await writeFile(join(dataDir, 'animals.log'), RECORDS + torn);
  await writeFile(join(dataDir, 'keys.json'), '{"keys":[]}');
  const backup = await snapshotDataDir(dataDir, TAKEN_AT);
  assert.deepEqual(
    backup.files.map((file) => [file.name, file.bytes.toString()]),
    [
      ['animals.log', RECORDS],
      ['keys.json', '{"keys":[]}'],
    ],
  );
  assert.equal(backup.createdAt, TAKEN_AT.toISOString());
});

test('a directory with no journal is not backed up', async () => {
  await assert.rejects(snapshotDataDir(await tempDir(), TAKEN_AT), /holds no animal store \(no animals\.log\)/);
});

test('a sound backup decodes to exactly what was encoded', () => {
  const decoded = decodeBackup(smallBackup());
  assert.equal(decoded.createdAt, TAKEN_AT.toISOString());
  assert.deepEqual(
    decoded.files.map((file) => [file.name, file.bytes.toString()]),
    [
      ['animals.log', RECORDS],
      ['cursor.secret', '0123456789abcdef'],
    ],
  );
});

test('every flipped bit of a backup is refused', () => {
  const bytes = smallBackup();
  for (let offset = 0; offset < bytes.length; offset++) {
    for (const mask of [0x01, 0x80]) {
      const altered = Buffer.from(bytes);
      altered[offset] = (altered[offset] as number) ^ mask;
      assert.throws(() => decodeBackup(altered), BackupError, `byte ${offset} ^ ${mask} was accepted`);
    }
  }
});

test('every cut of a backup is refused', () => {
  const bytes = smallBackup();
  for (let length = 0; length < bytes.length; length++)
    assert.throws(() => decodeBackup(bytes.subarray(0, length)), BackupError, `${length} bytes were accepted`);
});

test('a backup of another format version is refused, naming it', () => {
  const bytes = Buffer.from(smallBackup());
  bytes.write('2', 'animal-store backup '.length, 'latin1');
  assert.throws(() => decodeBackup(bytes), /another format version \("animal-store backup 2"\)/);
});

test('a backup whose checksums hold but whose journal ends torn is refused', async () => {
  const dir = await tempDir();
  const path = join(dir, 'torn.backup');
  const torn = RECORDS + encodeRecord('{"t":"pet","id":4}').slice(0, 10);
  await writeFile(
    path,
    encodeBackup({ createdAt: TAKEN_AT.toISOString(), files: [{ name: 'animals.log', bytes: Buffer.from(torn) }] }),
  );
  await assert.rejects(readBackup(path), /ends in a torn record/);
  await assert.rejects(restoreDataDir(path, join(dir, 'target')), BackupError);
});

test('a restore writes the files of the backup into a new directory', async () => {
  const dir = await tempDir();
  const path = join(dir, 'small.backup');
  await writeFile(path, smallBackup());
  const target = join(dir, 'restored');
  const summary = await restoreDataDir(path, target);
  assert.deepEqual(summary.files, ['animals.log', 'cursor.secret']);
  assert.equal(summary.records, 3);
  const again = await snapshotDataDir(target, TAKEN_AT);
  assert.deepEqual(encodeBackup(again), smallBackup());
});
