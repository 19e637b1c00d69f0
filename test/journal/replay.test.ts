import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CorruptLogError } from '../../src/journal/errors.js';
import { encodeRecord } from '../../src/journal/log-format.js';
import { replay } from '../../src/journal/replay.js';

const payloads = ['{"id":1,"name":"Rex"}', '{"id":2,"name":"Łajka"}', '{"id":3,"name":"Tom 🐈"}'];
const log = Buffer.from(payloads.map(encodeRecord).join(''));

test('an empty log replays to nothing', () => {
  assert.deepEqual(replay(Buffer.alloc(0), 'a.log'), { payloads: [], validBytes: 0 });
});

test('an intact log replays to its payloads in order, spanning the whole file', () => {
  assert.deepEqual(replay(log, 'a.log'), { payloads, validBytes: log.length });
});

test('replay accepts a Uint8Array view as well as a Buffer', () => {
  const view = new Uint8Array(log.buffer, log.byteOffset, log.byteLength);
  assert.deepEqual(replay(view, 'a.log').payloads, payloads);
});

test('a last record cut at any byte is a torn tail; the records before it survive', () => {
  const lastStart = log.length - Buffer.byteLength(encodeRecord(payloads[2]!));
  for (let cut = lastStart + 1; cut < log.length; cut += 1) {
    const result = replay(log.subarray(0, cut), 'a.log');
    assert.deepEqual(result.payloads, payloads.slice(0, 2), `cut at ${cut}`);
    assert.equal(result.validBytes, lastStart);
    assert.deepEqual(result.tornTail, { offset: lastStart, text: log.toString('utf8', lastStart, cut) });
  }
  // Cut exactly at a record boundary: nothing is torn.
  assert.deepEqual(replay(log.subarray(0, lastStart), 'a.log'), {
    payloads: payloads.slice(0, 2),
    validBytes: lastStart,
  });
});

test('a log cut anywhere replays to a prefix of its records and never throws', () => {
  for (let cut = 0; cut <= log.length; cut += 1) {
    const result = replay(log.subarray(0, cut), 'a.log');
    assert.deepEqual(result.payloads, payloads.slice(0, result.payloads.length));
    assert.equal(result.tornTail === undefined, result.validBytes === cut);
  }
});

test('a whole last line that fails its checks is damage, not a torn tail: acknowledged records are never cut', () => {
  const lastStart = log.length - Buffer.byteLength(encodeRecord(payloads[2]!));
  const secondStart = Buffer.byteLength(encodeRecord(payloads[0]!));
  const changed = Buffer.from(log);
  changed[changed.length - 3] = changed[changed.length - 3]! ^ 0x01;
  // The newline that ended line 2, changed: lines 2 and 3 read as one line that fails its checks.
  const joined = Buffer.from(log);
  joined[lastStart - 1] = 0x58;
  for (const [label, bytes, line, offset] of [
    ['a byte changed in the last record', changed, 3, lastStart],
    ['the newline before the last record changed', joined, 2, secondStart],
    ['a line of garbage appended', Buffer.concat([log, Buffer.from('hello garbage\n')]), 4, log.length],
    ['an empty line appended', Buffer.concat([log, Buffer.from('\n')]), 4, log.length],
  ] as const) {
    assert.throws(
      () => replay(bytes, '/data/animals.log'),
      (error: unknown) => error instanceof CorruptLogError && error.line === line && error.offset === offset,
      label,
    );
  }
});

test('a last line with zeros where the disk did not finish the write is torn, even if it ends in a newline', () => {
  const lastStart = log.length - Buffer.byteLength(encodeRecord(payloads[2]!));
  const unfinished = Buffer.from(log);
  unfinished.fill(0, lastStart + 4, lastStart + 12);
  const result = replay(unfinished, 'a.log');
  assert.deepEqual(result.payloads, payloads.slice(0, 2));
  assert.equal(result.tornTail?.offset, lastStart);
});

test('a zero-filled tail (a file extended but never written, as after a power cut) is torn', () => {
  const zeros = Buffer.concat([log, Buffer.alloc(4096)]);
  const result = replay(zeros, 'a.log');
  assert.deepEqual(result.payloads, payloads);
  assert.equal(result.tornTail?.offset, log.length);
  assert.equal(result.validBytes, log.length);
});

test('damage before the last line throws CorruptLogError naming the file and the line', () => {
  const firstLength = Buffer.byteLength(encodeRecord(payloads[0]!));
  for (let at = 0; at < log.length - Buffer.byteLength(encodeRecord(payloads[2]!)); at += 1) {
    const damaged = Buffer.from(log);
    damaged[at] = damaged[at]! ^ 0x20;
    if (damaged[at] === 0x0a || log[at] === 0x0a) continue; // a moved newline is covered below
    const line = at < firstLength ? 1 : 2;
    assert.throws(
      () => replay(damaged, '/data/animals.log'),
      (error: unknown) => {
        assert.ok(error instanceof CorruptLogError);
        assert.equal(error.file, '/data/animals.log');
        assert.equal(error.line, line);
        assert.match(error.message, new RegExp(`/data/animals\\.log: line ${line} `));
        return true;
      },
      `flip at byte ${at}`,
    );
  }
});

test('a lost newline in the middle merges two lines and is damage, not a torn tail', () => {
  const firstEnd = Buffer.byteLength(encodeRecord(payloads[0]!)) - 1;
  const damaged = Buffer.from(log);
  damaged[firstEnd] = 0x20;
  assert.throws(() => replay(damaged, 'a.log'), { name: 'CorruptLogError', line: 1 });
});

test('an empty line in the middle is damage', () => {
  const damaged = Buffer.from(`${encodeRecord(payloads[0]!)}\n${encodeRecord(payloads[1]!)}`);
  assert.throws(() => replay(damaged, 'a.log'), {
    name: 'CorruptLogError',
    line: 2,
    offset: Buffer.byteLength(encodeRecord(payloads[0]!)),
  });
});

test('the torn tail text decodes invalid UTF-8 with replacement characters', () => {
  const torn = Buffer.concat([log, Buffer.from([0x35, 0x3a, 0xe2, 0x82])]);
  assert.equal(replay(torn, 'a.log').tornTail?.text, '5:\ufffd');
});

test('replay is fast enough for 100,000 records (a smoke check, not a timing assertion)', () => {
  const many = Buffer.from(
    Array.from({ length: 100_000 }, (_, i) =>
      encodeRecord(`{"id":${i + 1},"name":"pet ${i}","categoryId":3,"status":"available"}`),
    ).join(''),
  );
  const result = replay(many, 'big.log');
  assert.equal(result.payloads.length, 100_000);
  assert.equal(result.payloads[99_999], '{"id":100000,"name":"pet 99999","categoryId":3,"status":"available"}');
});
