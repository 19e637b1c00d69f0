import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { MemoryFs } from '../../src/journal/memory-fs.js';
import { writeAll } from '../../src/journal/storage-fs.js';

const bytes = (text: string) => Buffer.from(text);

test('written bytes are readable at once but survive a power loss only once synced', async () => {
  const fs = new MemoryFs();
  await fs.mkdir('/d', 0o700);
  const file = await fs.open('/d/f', 'a');
  await fs.syncDir('/d');
  await writeAll(file, bytes('one\n'));
  await file.datasync();
  await writeAll(file, bytes('two\n'));
  assert.equal(fs.peek('/d/f')?.toString(), 'one\ntwo\n');
  const after = fs.powerLoss();
  assert.equal((await after.readFile('/d/f')).toString(), 'one\n');
  await assert.rejects(file.write(bytes('x'), 0, 1), { code: 'EIO' });
  await assert.rejects(fs.readFile('/d/f'), { code: 'EIO' });
});

test('a file whose directory was never synced is gone after a power loss', async () => {
  const fs = new MemoryFs();
  await fs.mkdir('/d', 0o700);
  const file = await fs.open('/d/f', 'a');
  await writeAll(file, bytes('data'));
  await file.sync();
  assert.equal(fs.powerLossImage().peek('/d/f'), undefined);
});

test('a rename is durable only once the directory is synced', async () => {
  const fs = new MemoryFs();
  fs.setFile('/d/log', 'old');
  fs.setFile('/d/tmp', 'new');
  await fs.rename('/d/tmp', '/d/log');
  assert.equal(fs.peek('/d/log')?.toString(), 'new');
  const before = fs.powerLossImage();
  assert.equal(before.peek('/d/log')?.toString(), 'old');
  assert.equal(before.peek('/d/tmp')?.toString(), 'new');
  await fs.syncDir('/d');
  const after = fs.powerLossImage();
  assert.equal(after.peek('/d/log')?.toString(), 'new');
  assert.equal(after.peek('/d/tmp'), undefined);
});

test('a truncation below the synced length is undone by a power loss until synced', async () => {
  const fs = new MemoryFs();
  fs.setFile('/d/f', 'abcdef');
  const file = await fs.open('/d/f', 'a');
  await file.truncate(2);
  await writeAll(file, bytes('XY'));
  assert.equal(fs.peek('/d/f')?.toString(), 'abXY');
  assert.equal(fs.powerLossImage().peek('/d/f')?.toString(), 'abcdef');
  await file.datasync();
  assert.equal(fs.powerLossImage().peek('/d/f')?.toString(), 'abXY');
});

test('a random power loss keeps the synced bytes and a prefix of the appended ones', async () => {
  const fs = new MemoryFs();
  fs.setFile('/d/f', 'synced|');
  const file = await fs.open('/d/f', 'a');
  await writeAll(file, bytes('0123456789'));
  for (const r of [0, 0.25, 0.5, 0.999]) {
    const text = fs
      .powerLossImage(() => r)
      .peek('/d/f')!
      .toString();
    assert.ok('synced|0123456789'.startsWith(text) && text.startsWith('synced|'), text);
  }
});

test('open refuses an existing file under wx and a missing directory', async () => {
  const fs = new MemoryFs();
  fs.setFile('/d/f', 'x');
  await assert.rejects(fs.open('/d/f', 'wx'), { code: 'EEXIST' });
  await assert.rejects(fs.open('/nowhere/f', 'a'), { code: 'ENOENT' });
  await assert.rejects(fs.readFile('/d/g'), { code: 'ENOENT' });
  await assert.rejects(fs.unlink('/d/g'), { code: 'ENOENT' });
});

test('a fault fails the Nth matching call once, or from then on', async () => {
  const fs = new MemoryFs();
  await fs.mkdir('/d', 0o700);
  const file = await fs.open('/d/f', 'a');
  fs.inject({ op: 'datasync', nth: 2, code: 'EIO' });
  await file.datasync();
  await assert.rejects(file.datasync(), { code: 'EIO' });
  await file.datasync();
  fs.inject({ op: 'write', nth: 1, code: 'ENOSPC', persistent: true });
  await assert.rejects(file.write(bytes('a'), 0, 1), { code: 'ENOSPC' });
  await assert.rejects(file.write(bytes('a'), 0, 1), { code: 'ENOSPC' });
  assert.equal(fs.peek('/d/f')?.length, 0, 'a failed write writes nothing');
  fs.clearFaults();
  assert.equal(await file.write(bytes('a'), 0, 1), 1);
});

test('a short-write fault writes half of what was asked', async () => {
  const fs = new MemoryFs();
  await fs.mkdir('/d', 0o700);
  const file = await fs.open('/d/f', 'a');
  fs.inject({ op: 'write', nth: 1, short: true, persistent: true });
  assert.equal(await file.write(bytes('abcdef'), 0, 6), 3);
  await writeAll(file, bytes('ghij'));
  assert.equal(fs.peek('/d/f')?.toString(), 'abcghij');
});

test('a full disk writes what fits, then says ENOSPC', async () => {
  const fs = new MemoryFs({ capacityBytes: 10 });
  fs.setFile('/d/filler', '1234');
  const file = await fs.open('/d/f', 'a');
  assert.equal(await file.write(bytes('abcdefgh'), 0, 8), 6);
  await assert.rejects(file.write(bytes('x'), 0, 1), { code: 'ENOSPC' });
  await fs.unlink('/d/filler');
  assert.equal(await file.write(bytes('x'), 0, 1), 1);
});

test('onCall sees every call in order', async () => {
  const fs = new MemoryFs();
  const seen: string[] = [];
  fs.onCall = (op) => seen.push(op);
  await fs.mkdir('/d', 0o700);
  const file = await fs.open('/d/f', 'w');
  await file.write(bytes('a'), 0, 1);
  await file.close();
  await assert.rejects(file.close(), { code: 'EBADF' });
  assert.deepEqual(seen, ['mkdir', 'open', 'write', 'close']);
  assert.equal(fs.calls, 4);
  assert.deepEqual(fs.list('/d'), ['f']);
});
