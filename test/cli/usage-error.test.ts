// Which file-system errors become the one-line data-directory answer (exit code 2), and which do not.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { dataDirUsageError, UsageError } from '../../src/cli/usage-error.js';

function errnoError(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, '${path}'`), { code, path });
}

test('an errno error on the data directory, a file in it or a parent of it names the directory and the fix', () => {
  for (const [code, path, problem] of [
    ['EROFS', '/srv/data/LOCK', /read-only file system \(EROFS\)/],
    ['EACCES', '/srv/data', /no permission to write there \(EACCES\)/],
    ['ENOENT', '/srv', /cannot be created there \(ENOENT\)/],
    ['ENOSPC', '/srv/data/keys.json.1.tmp', /disk is full \(ENOSPC\)/],
  ] as const) {
    const usage = dataDirUsageError(errnoError(code, path), '/srv/data');
    assert.ok(usage instanceof UsageError, code);
    assert.match(usage.message, /^cannot use the data directory \/srv\/data: /);
    assert.match(usage.message, problem);
    assert.match(usage.message, /pass --data-dir with a writable directory$/);
  }
});

test('a file of the data directory that is there but unusable is named, with what to do about it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-usage-'));
  try {
    await writeFile(join(dir, 'keys.json'), '{}');
    await mkdir(join(dir, 'animals.log'));
    const denied = dataDirUsageError(errnoError('EACCES', join(dir, 'keys.json')), dir);
    assert.equal(
      denied?.message,
      `cannot use ${join(dir, 'keys.json')} in the data directory ${dir}: no permission to read or write it; give it to the service's user (EACCES)`,
    );
    const directory = dataDirUsageError(errnoError('EISDIR', join(dir, 'animals.log')), dir);
    assert.match(
      directory?.message ?? '',
      /animals\.log in the data directory .*: it is a directory where the service keeps a file; move it away \(EISDIR\)$/,
    );
    // A file that is not there yet could not be created: the directory is at fault, as before.
    assert.match(
      dataDirUsageError(errnoError('EACCES', join(dir, 'LOCK')), dir)?.message ?? '',
      /^cannot use the data directory /,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('errors elsewhere, without a path, or of other kinds are left as they are', () => {
  assert.equal(dataDirUsageError(errnoError('EACCES', '/etc/other'), '/srv/data'), undefined);
  assert.equal(dataDirUsageError(errnoError('EACCES', '/srv/database'), '/srv/data'), undefined);
  assert.equal(dataDirUsageError(Object.assign(new Error('no path'), { code: 'EROFS' }), '/srv/data'), undefined);
  assert.equal(dataDirUsageError(errnoError('ECONNRESET', '/srv/data'), '/srv/data'), undefined);
  assert.equal(dataDirUsageError('a string', '/srv/data'), undefined);
});

test('a data directory owned by another process is no usage mistake: its own message stands', () => {
  const locked = Object.assign(
    new Error('Another process (pid 42) owns the data directory /srv/data; stop it first.'),
    {
      name: 'DataDirLockedError',
    },
  );
  assert.equal(dataDirUsageError(locked, '/srv/data'), undefined);
});
