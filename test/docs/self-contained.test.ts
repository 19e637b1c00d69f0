// The repository stands on its own: no comment, test or page cites a document outside it or an issue
// tracker's numbers, and every README section a source file names exists, so a reader can follow each
// reference.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const tracked = execFileSync('git', ['ls-files', 'src', 'test', 'bench', 'scripts', 'docs', 'README.md', '.ci'], {
  cwd: ROOT,
  encoding: 'utf8',
})
  .split('\n')
  .filter((path) => path !== '' && !path.endsWith('.png'));

// Spelled in parts, so that this file does not find itself.
const OUTSIDE = new RegExp(
  ['CONTRACT', 'SPEC', 'STYLE', 'DEVELOPERS'].map((name) => `${name}\\.md`).join('|') +
    '|\\.\\./shared|\\bissues? #?[0-9]',
  'i',
);

test('no file cites a document outside the repository or an issue number', () => {
  const found: string[] = [];
  for (const path of tracked) {
    readFileSync(`${ROOT}${path}`, 'utf8')
      .split('\n')
      .forEach((line, index) => {
        if (OUTSIDE.test(line)) found.push(`${path}:${index + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(found, []);
});

test('every README section a source file names exists', () => {
  const headings = readFileSync(`${ROOT}README.md`, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('#'))
    .map((line) => line.replace(/^#+\s*/, ''));
  const missing: string[] = [];
  for (const path of tracked.filter((file) => file.endsWith('.ts') && !file.endsWith('self-contained.test.ts'))) {
    for (const match of readFileSync(`${ROOT}${path}`, 'utf8').matchAll(/README "([^"]+)"(?: and "([^"]+)")?/g)) {
      for (const name of [match[1], match[2]]) {
        if (name !== undefined && !headings.some((heading) => heading.startsWith(name)))
          missing.push(`${path}: "${name}"`);
      }
    }
  }
  assert.deepEqual(missing, []);
});
