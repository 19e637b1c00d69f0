// The access log's batching: one write per turn of the event loop, nothing lost on exit (a normal one,
// process.exit, or an uncaught exception), and the hand-built line equal to the generic JSON one.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import fc from 'fast-check';
import { bufferLines } from '../../src/buffered-lines.js';
import { accessLine, type AccessEntry } from '../../src/logger.js';

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
      import { bufferLines } from './src/buffered-lines.ts';
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

test('the hand-built access line is the JSON of the entry, field for field', () => {
  const entry = fc.record({
    requestId: fc.string(),
    method: fc.string(),
    path: fc.string({ unit: 'binary' }),
    status: fc.integer({ min: 100, max: 599 }),
    durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
    keyId: fc.option(fc.string(), { nil: undefined }),
  });
  fc.assert(
    fc.property(entry, (value: AccessEntry) => {
      const time = '2026-11-24T18:00:00.000Z';
      const line = accessLine(time, value);
      assert.equal(line, `${JSON.stringify({ time, level: 'info', msg: 'request', ...value })}\n`);
    }),
  );
});
