// Log lines gathered as bytes: written together within the period, at once past FLUSH_BYTES, nothing
// lost on exit (a normal one, process.exit, or an uncaught exception), lines in the order they were
// logged, and the hand-built access line equal to the generic JSON one, byte for byte.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { FLUSH_BYTES, LineBuffer } from '../../src/logging/line-buffer.js';
import {
  accessLogWriter,
  type AccessEntry,
  createLogger,
  isoTimeCache,
  jsonString,
  millisecondsText,
} from '../../src/logging/logger.js';

/** A buffer whose chunks are kept as text. */
function capture(options: { batched?: boolean; periodMs?: number } = {}): { lines: LineBuffer; chunks: string[] } {
  const chunks: string[] = [];
  return { lines: new LineBuffer((chunk) => chunks.push(chunk.toString('utf8')), options), chunks };
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

test('lines gathered within the period reach the output in one write, in order', async (t) => {
  // The period's timer moves only when told, so that a busy machine stalling between two turns cannot
  // end the period early.
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { lines, chunks } = capture({ periodMs: 30 });
  lines.writeText('a\n');
  await new Promise((done) => setImmediate(done));
  lines.writeText('b\n');
  assert.deepEqual(chunks, [], 'nothing is written before the period ends, even across turns');
  t.mock.timers.tick(29);
  assert.deepEqual(chunks, [], 'nor a moment before it ends');
  t.mock.timers.tick(1);
  assert.deepEqual(chunks, ['a\nb\n']);
  lines.writeText('c\n');
  lines.flush();
  assert.deepEqual(chunks, ['a\nb\n', 'c\n'], 'flush writes at once');
  lines.close();
  lines.writeText('d\n');
  assert.deepEqual(chunks.at(-1), 'd\n', 'after close, lines are written one by one');
});

test('lines past FLUSH_BYTES are written at once, none cut in two', () => {
  const { lines, chunks } = capture({ periodMs: 60_000 });
  const line = `${'x'.repeat(999)}\n`;
  const count = Math.ceil(FLUSH_BYTES / line.length) + 1;
  for (let index = 0; index < count; index++) lines.writeText(line);
  assert.equal(chunks.length, 1, 'one write once the bound was passed');
  assert.ok((chunks[0] as string).length >= FLUSH_BYTES);
  assert.ok((chunks[0] as string).endsWith('\n'));
  lines.close();
  assert.equal(chunks.join(''), line.repeat(count));
});

test('an unbatched buffer writes each line as it comes', () => {
  const { lines, chunks } = capture({ batched: false });
  lines.writeText('é\n');
  lines.writeText('b\n');
  assert.deepEqual(chunks, ['é\n', 'b\n']);
});

test('access lines kept aside keep their place among the other lines', async () => {
  const { lines, chunks } = capture({ periodMs: 30 });
  const logger = createLogger({ lines, now: () => 0 });
  const entry = { requestId: 'r1', method: 'GET', path: '/v1/pets', status: 200, durationMs: 1, keyId: undefined };
  logger.access?.(entry);
  logger.info('between');
  logger.access?.({ ...entry, requestId: 'r2' });
  await sleep(80);
  const logged = chunks
    .join('')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.deepEqual(
    logged.map((line) => line.requestId ?? line.msg),
    ['r1', 'between', 'r2'],
  );
  lines.close();
});

test('access lines are formed and written once 64 are kept, without waiting for the period', () => {
  const { lines, chunks } = capture({ periodMs: 60_000 });
  const logger = createLogger({ lines, now: () => 0 });
  const entry = { requestId: 'r', method: 'GET', path: '/v1/pets', status: 200, durationMs: 1, keyId: undefined };
  for (let index = 0; index < 63; index++) logger.access?.(entry);
  assert.deepEqual(chunks, [], 'kept while fewer than 64');
  logger.access?.(entry);
  assert.equal(chunks.length, 1, 'the 64th writes them');
  assert.equal(chunks.join('').trimEnd().split('\n').length, 64);
  lines.close();
});

test('a logger takes either write or lines', () => {
  const { lines } = capture({ batched: false });
  assert.throws(() => createLogger({ lines, write: () => {} }), TypeError);
  const logger = createLogger({ lines });
  assert.throws(() => accessLogWriter(lines, Date.now, isoTimeCache()), TypeError, 'one access log a buffer');
  assert.notEqual(logger.access, undefined);
});

// A child writes lines through the buffer and ends in one of three ways; every line must be in its stdout.
const ENDINGS = {
  'process.exit': 'process.exit(0);',
  'an uncaught exception': "throw new Error('boom');",
  'a normal end': '',
} as const;

for (const [ending, code] of Object.entries(ENDINGS)) {
  test(`nothing gathered is lost on ${ending}, access lines kept aside included`, () => {
    const script = `
      import { LineBuffer } from './src/logging/line-buffer.ts';
      import { createLogger } from './src/logging/logger.ts';
      const out = new LineBuffer((chunk) => process.stdout.write(chunk));
      const logger = createLogger({ lines: out });
      for (let i = 0; i < 1000; i++) out.writeText('line ' + i + '\\n');
      for (let i = 0; i < 10; i++)
        logger.access({ requestId: 'r' + i, method: 'GET', path: '/v1/pets', status: 200, durationMs: 1, keyId: undefined });
      ${code}`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    const all = child.stdout.split('\n').filter((line) => line !== '');
    const lines = all.filter((line) => line.startsWith('line '));
    assert.equal(lines.length, 1000, child.stderr);
    assert.equal(lines[999], 'line 999');
    const requestIds = all
      .filter((line) => line.startsWith('{'))
      .map((line) => (JSON.parse(line) as { requestId: string }).requestId);
    assert.deepEqual(
      requestIds,
      ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8', 'r9'],
      'the kept access lines, after the rest',
    );
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
  const { lines, chunks } = capture({ batched: false });
  let timeMs = 0;
  const writeAccess = accessLogWriter(lines, () => timeMs, isoTimeCache());
  const entry = fc.record({
    requestId: fc.string(),
    method: fc.string(),
    path: fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: ANY_UTF16_UNIT })),
    status: fc.integer({ min: 100, max: 599 }),
    durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    keyId: fc.option(fc.oneof(fc.constantFrom('cfg_af1abe7c', 'key_2'), fc.string()), { nil: undefined }),
  });
  // Times a millisecond apart (the opening changed in place), and years whose text is longer.
  const at = fc.constantFrom(1_795_543_200_000, 1_795_543_200_001, 1_795_543_201_999, 253_402_300_800_000, -1);
  fc.assert(
    fc.property(fc.array(fc.tuple(at, entry), { minLength: 1, maxLength: 5 }), (sequence) => {
      for (const [ms, value] of sequence) {
        timeMs = ms;
        writeAccess(value as AccessEntry);
        const time = new Date(ms).toISOString();
        assert.equal(chunks.at(-1), `${JSON.stringify({ time, level: 'info', msg: 'request', ...value })}\n`);
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
