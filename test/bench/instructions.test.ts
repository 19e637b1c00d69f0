// The instructions check's pieces: reading a callgrind dump, and the command it runs node with.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { callgrindWrapper, compilerInstructions, dumpTotal, hasValgrind } from '../../bench/instructions.js';

test('a dump total is read from its totals line, or from summary in older dumps', () => {
  assert.equal(dumpTotal('version: 1\ncmd: node x\nevents: Ir\nsummary: 123\ntotals: 456789\n'), 456789);
  assert.equal(dumpTotal('events: Ir\nsummary: 98765\n'), 98765);
  assert.throws(() => dumpTotal('events: Ir\n'), /without totals/);
});

test("V8's compilers' inclusive instructions are added up from callgrind_annotate's listing", () => {
  const listing = [
    '--------------------------------------------------------------------------------',
    '115,434,303 (100.0%)  PROGRAM TOTALS',
    '103,922,336 (90.03%)  /build/deps/uv/src/unix/linux.c:uv__io_poll [/usr/bin/node]',
    ' 10,856,963 ( 9.41%)  ???:v8::internal::Runtime_CompileOptimized(int, unsigned long*) [/usr/bin/node]',
    ' 10,856,507 ( 9.40%)  ???:v8::internal::Compiler::CompileOptimized(v8::internal::Isolate*) [/usr/bin/node]',
    '  1,305,542 ( 1.13%)  ???:v8::internal::baseline::BaselineBatchCompiler::CompileBatch(v8::internal::Handle) [/usr/bin/node]',
  ].join('\n');
  assert.equal(compilerInstructions(listing), 10_856_507 + 1_305_542);
  assert.equal(compilerInstructions('1,000 (100.0%)  PROGRAM TOTALS\n'), 0);
});

test('node runs under callgrind with self-modifying code checked, its dumps in the directory', () => {
  const wrapper = callgrindWrapper('/tmp/somewhere');
  assert.equal(wrapper[0], 'valgrind');
  assert.ok(wrapper.includes('--tool=callgrind'));
  assert.ok(wrapper.includes('--smc-check=all-non-file'));
  assert.ok(wrapper.includes('--callgrind-out-file=/tmp/somewhere/callgrind.out.%p'));
});

test('node under the wrapper writes a dump whose total is readable', { skip: !hasValgrind() }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'instructions-test-'));
  try {
    const [program, ...args] = callgrindWrapper(dir);
    execFileSync(
      program as string,
      [...args, process.execPath, '-e', 'let s = 0; for (let i = 0; i < 1e5; i++) s += i;'],
      {
        stdio: 'ignore',
      },
    );
    const dumps = readdirSync(dir).filter((name) => name.startsWith('callgrind.out.'));
    assert.equal(dumps.length, 1);
    // Starting node alone takes tens of millions of instructions.
    assert.ok(dumpTotal(readFileSync(join(dir, dumps[0] as string), 'utf8')) > 10_000_000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--instructions-on names one of the backings, or the run is refused with exit code 2 naming them', () => {
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'bench/compare.ts', '--checks', 'instructions', '--instructions-on', 'mysql'],
    { encoding: 'utf8' },
  );
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /--instructions-on must be one of memory, redis, postgres, not "mysql"/);
});
