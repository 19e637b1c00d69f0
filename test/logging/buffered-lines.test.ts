// The access log's batching: one write per turn of the event loop, nothing lost on exit (a normal one,
// process.exit, or an uncaught exception), and the hand-built line equal to the generic JSON one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { bufferLines } from '../../src/logging/buffered-lines.js';
import {
  accessLogWriter,
  type AccessEntry,
  isoTimeCache,
  jsonString,
  millisecondsText,
} from '../../src/logging/logger.js';

test('lines written in one turn of the event loop reach the output in one write, in order', async () => {
  const chunks: string[] = [];
  const lines = bufferLines((chunk) => chunks.push(chunk));
  lines.write('a\n');
  lines.write('b\n');
  assert.deepEqual(chunks, [], 'nothing is written before the turn ends');
  await new Promise((done) => setImmediate(done));
  lines.write('c\n');
  await new Promise((done) => setImmediate(done));
  assert.deepEqual(chunks, ['a\nb\n', 'c\n']);
  lines.write('d\n');
  lines.flush();
  assert.deepEqual(chunks, ['a\nb\n', 'c\n', 'd\n'], 'flush writes at once');
  lines.close();
  lines.write('e\n');
  assert.deepEqual(chunks.at(-1), 'e\n', 'after close, lines are written one by one');
});

// A child writes lines through the buffer and ends in one of three ways; every line must be in its stdout.
const ENDINGS = {
  'process.exit': 'process.exit(0);',
  'an uncaught exception': "throw new Error('boom');",
  'a normal end': '',
} as const;

for (const [ending, code] of Object.entries(ENDINGS)) {
  test(`nothing gathered is lost on ${ending}`, () => {
    const script = `
      import { bufferLines } from './src/logging/buffered-lines.ts';
      const out = bufferLines((chunk) => process.stdout.write(chunk));
      for (let i = 0; i < 1000; i++) out.write('line ' + i + '\\n');
      ${code}`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    const lines = child.stdout.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1000, child.stderr);
    assert.equal(lines[999], 'line 999');
  });
}

/** Any UTF-16 code unit, lone surrogates and control characters included. */
const ANY_UTF16_UNIT = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

test('a JSON string literal is formed as JSON.stringify forms it', () => {
  for (const text of ['', 'GET', '/v1/pets/7', 'a"b', 'a\\b', '\n', '\u007f', 'é', '🐕', '\ud83d', '\udc15x'])
    assert.equal(jsonString(text), JSON.stringify(text), JSON.stringify(text));
  fc.assert(fc.property(fc.string({ unit: ANY_UTF16_UNIT }), (text) => jsonString(text) === JSON.stringify(text)));
});

test('the cached time text is toISOString of every time, in any order', () => {
  const timeOf = isoTimeCache();
  const times = [
    0, 999, 1000, 1000.5, 1_795_645_626_000, 1_795_645_626_007.9, 1_795_645_626_999, 1_795_645_627_000, -1, -1500.5,
  ];
  for (const ms of [...times, ...times.reverse()]) assert.equal(timeOf(ms), new Date(ms).toISOString(), String(ms));
  // Within the range a Date can hold (±8.64e15 ms), consecutive times near each other and far apart.
  const ms = fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true });
  fc.assert(
    fc.property(fc.array(fc.oneof(ms, fc.integer({ min: 1_795_645_626_000, max: 1_795_645_629_000 }))), (all) =>
      all.every((value) => timeOf(value) === new Date(value).toISOString()),
    ),
  );
});

test('the hand-built access line is the JSON of the entry, field for field, whatever came before it', () => {
  const lines: string[] = [];
  let time = '';
  const writeAccess = accessLogWriter(
    (line) => lines.push(line),
    () => time,
  );
  const entry = fc.record({
    requestId: fc.string(),
    method: fc.string(),
    path: fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: ANY_UTF16_UNIT })),
    status: fc.integer({ min: 100, max: 599 }),
    durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    keyId: fc.option(fc.oneof(fc.constantFrom('cfg_af1abe7c', 'key_2'), fc.string()), { nil: undefined }),
  });
  const at = fc.constantFrom('2026-11-24T18:00:00.000Z', '2026-11-24T18:00:00.001Z');
  fc.assert(
    fc.property(fc.array(fc.tuple(at, entry), { minLength: 1, maxLength: 5 }), (sequence) => {
      for (const [now, value] of sequence) {
        time = now;
        writeAccess(value as AccessEntry);
        assert.equal(lines.at(-1), `${JSON.stringify({ time: now, level: 'info', msg: 'request', ...value })}\n`);
      }
    }),
  );
});

test('a duration is written as String writes it, from whole microseconds or not', () => {
  for (const ms of [
    0,
    0.001,
    0.009,
    0.01,
    0.1,
    0.5,
    1,
    1.5,
    12.345,
    999.999,
    1000,
    0.123,
    7.05,
    -0,
    1e9,
    1e12 + 0.5,
    0.0005,
    NaN,
  ])
    assert.equal(millisecondsText(ms), String(ms), String(ms));
  const rounded = fc.integer({ min: 0, max: 1e12 }).map((micros) => Math.round((micros / 1000) * 1000) / 1000);
  fc.assert(
    fc.property(fc.oneof(rounded, fc.double({ noNaN: true })), (ms) => millisecondsText(ms) === String(ms)),
    { numRuns: 20000 },
  );
});
