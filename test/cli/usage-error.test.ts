// Which file-system errors become the one-line data-directory answer (exit code 2), and which do not.
import assert from 'node:assert/strict';
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
