// The README's tables stay in step with the code they describe.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SETTINGS } from '../../src/config.js';
import { ERRORS } from '../../src/errors.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README error table lists every code of src/errors.ts with its status, and nothing else', () => {
  const rows = [...readme.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((match) => [match[2], Number(match[1])]);
  assert.deepEqual(rows, Object.entries(ERRORS).map(([code, { status }]) => [code, status]));
});

test('the README configuration table lists every setting with its flag and variable', () => {
  const rows = [...readme.matchAll(/^\| `(--[a-z-]+)` \| `(ANIMAL_STORE_[A-Z_]+)` \|/gm)].map((match) => [match[1], match[2]]);
  assert.deepEqual(rows, SETTINGS.map((setting) => [setting.flag, setting.env]));
});

test('the README shows the two commands a newcomer needs first', () => {
  const first = readme.slice(0, 600);
  assert.match(first, /npm ci && npm start/);
  assert.match(first, /npm ci && npm test/);
});
