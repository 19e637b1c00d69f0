// The README's tables stay in step with the code they describe.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { SETTINGS } from '../../src/config/setting-table.js';
import { DEFAULT_SETTINGS, SERVE_ONLY_DEFAULTS } from '../../src/config/settings.js';
import { ERRORS } from '../../src/core/errors.js';
import { resolveLimiterOptions } from '../../src/limits/index.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('the README error table lists every code of src/core/errors.ts with its status, and nothing else', () => {
  const rows = [...readme.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((match) => [match[2], Number(match[1])]);
  assert.deepEqual(
    rows,
    Object.entries(ERRORS).map(([code, { status }]) => [code, status]),
  );
});

test('the README configuration table lists every setting with its flag and variable', () => {
  const rows = [...readme.matchAll(/^\| `(--[a-z-]+)` \| `(ANIMAL_STORE_[A-Z_]+)` \|/gm)].map((match) => [
    match[1],
    match[2],
  ]);
  assert.deepEqual(
    rows,
    SETTINGS.map((setting) => [setting.flag, setting.env]),
  );
});

test("each configuration row has the setting's own meaning and, where it is one plain value, its default", () => {
  const rows = [...readme.matchAll(/^\| `(--[a-z-]+)` \| `ANIMAL_STORE_[A-Z_]+` \| (.*?) \| (.*) \|$/gm)];
  const limiterDefaults: Record<string, unknown> = { ...resolveLimiterOptions() };
  const settingDefaults: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  assert.equal(rows.length, SETTINGS.length);
  for (const [index, [, flag, shownDefault, meaning]] of rows.entries()) {
    const setting = SETTINGS[index];
    assert.ok(setting !== undefined && setting.flag === flag, flag);
    assert.equal(meaning, setting.description, flag);
    const plain = /^`([^`]*)`$/.exec(shownDefault ?? '')?.[1];
    if (plain === undefined) continue; // "./data (CLI); memory (library)" and the like say more than one value
    const value =
      'limit' in setting
        ? limiterDefaults[setting.limit]
        : 'serve' in setting
          ? SERVE_ONLY_DEFAULTS[setting.serve]
          : settingDefaults[setting.option];
    assert.equal(
      plain,
      setting.kind === 'date' ? new Date(value as number).toISOString().slice(0, 10) : String(value),
      flag,
    );
  }
});

test('the README shows the two commands a newcomer needs first', () => {
  const first = readme.slice(0, 600);
  assert.match(first, /npm ci && npm start/);
  assert.match(first, /npm ci && npm test/);
});

test('every path docs/layout.md names exists (a moved file or folder is renamed there too)', () => {
  const layout = readFileSync(new URL('../../docs/layout.md', import.meta.url), 'utf8');
  const paths = [...layout.matchAll(/`((?:src|test|bench|scripts|docs)\/[^`]*)`/g)].map((match) => match[1] as string);
  assert.ok(paths.length >= 10, `the Layout section names paths: ${paths.join(', ')}`);
  for (const path of paths) assert.ok(existsSync(new URL(`../../${path}`, import.meta.url)), `${path} does not exist`);
});
