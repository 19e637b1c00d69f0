// A log whose framing is intact around a record this service did not write (a line edited by hand, or
// by a bug) is damage like any other: start-up stops with the file, the line and its byte offset
// named, and the file is left exactly as it was.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { CorruptLogError } from '../../src/journal/errors.js';
import { encodeRecord } from '../../src/journal/log-format.js';
import { openEmbeddedStore } from '../../src/store/embedded/open-embedded-store.js';

const clock = new ManualClock(Date.UTC(2027, 0, 1));
const open = (dataDir: string) =>
  openEmbeddedStore({
    dataDir,
    clock,
    durability: 'never',
    fsyncIntervalMs: 1000,
    compactMinRecords: 1e6,
    warn: () => {},
  });

for (const [what, payload, reason] of [
  ['not JSON', '{not json', /its record is not JSON/],
  ['an unknown operation', '{"op":"frobnicate"}', /its record is not a record this service writes/],
  ['a pet with a bad id', '{"op":"pet","pet":{"id":"x","name":"a","categoryId":1,"status":"available"}}', /its record/],
  // Valid on its own, but no store hands out ids so far apart: filling the gap would end the process.
  [
    'a pet whose id leaps far past the others',
    '{"op":"pet","pet":{"id":9007199254740991,"name":"a","categoryId":1,"status":"available"}}',
    /its id 9007199254740991 is more than 67108864 past the highest before it \(1\)/,
  ],
  [
    'an event position far past the others',
    '{"op":"pet","at":1798761600000,"ev":9007199254740990,"pet":{"id":2,"name":"a","categoryId":1,"status":"available"}}',
    /its event position 9007199254740990 is more than 67108864 past the highest before it \(1\)/,
  ],
] as const) {
  test(`a well-framed line in the middle holding ${what} stops start-up naming the file, line and byte offset; nothing is overwritten`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'animal-store-damage-'));
    try {
      const store = await open(dataDir);
      for (let i = 1; i <= 3; i++)
        await store.createPet({ name: `pet ${i}`, categoryId: 1, status: 'available' }, clock.now());
      await store.close();
      const log = join(dataDir, 'animals.log');
      const lines = (await readFile(log, 'utf8')).split('\n');
      const secondLineOffset = Buffer.byteLength(`${lines[0]}\n`);
      lines[1] = encodeRecord(payload).slice(0, -1);
      const damaged = lines.join('\n');
      await writeFile(log, damaged);
      await assert.rejects(open(dataDir), (error: unknown) => {
        assert.ok(error instanceof CorruptLogError, String(error));
        assert.equal(error.line, 2);
        assert.equal(error.offset, secondLineOffset);
        assert.match(
          error.message,
          new RegExp(`animals\\.log: line 2 \\(byte offset ${secondLineOffset}\\) is damaged`),
        );
        assert.match(error.message, reason);
        return true;
      });
      assert.equal(await readFile(log, 'utf8'), damaged, 'the file is left untouched');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}
