// The rate limiter's flags and variables take effect in a real `animal-store serve` (README "Rate limits":
// the ban's numbers and the failed-auth bucket are "configurable", the per-address table bounded).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { type Child, runCli, waitForListening } from '../helpers/child.js';

let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'animal-store-cli-limits-'));
});
after(() => rm(dataDir, { recursive: true, force: true }));

interface Answer {
  status: number;
  code: string | undefined;
  headers: Record<string, string | string[] | undefined>;
}

/** GET /pets with `key`, from `address` when the service trusts X-Forwarded-For. */
async function getPets(apiUrl: string, key: string, address?: string): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (address !== undefined) headers['x-forwarded-for'] = address;
  const response = await request(`${apiUrl}/pets`, { headers });
  const body = (await response.body.json()) as { code?: string } | unknown[];
  return { status: response.statusCode, code: Array.isArray(body) ? undefined : body.code, headers: response.headers };
}

/** Stops the child, whatever state a failed assertion left it in. */
async function stop(child: Child): Promise<void> {
  child.process.kill('SIGTERM');
  await child.exited;
}

test('--failed-auth-per-minute 2: the third request of an address after two 401s is 429, valid key included; --max-addresses 1 forgets it once another address fails', async () => {
  const key = 'limit-flags-key-0123456789';
  const child = runCli(
    [
      'serve',
      '--port',
      '0',
      '--data-dir',
      join(dataDir, 'flags'),
      '--trust-proxy',
      'true',
      '--failed-auth-per-minute',
      '2',
      '--max-addresses',
      '1',
    ],
    { ANIMAL_STORE_KEYS: `${key}:pro`, ANIMAL_STORE_LOG_LEVEL: 'warn' },
  );
  try {
    const apiUrl = await waitForListening(child);
    const first = await getPets(apiUrl, 'not-a-key-0123456789', '203.0.113.1');
    assert.equal(first.status, 401);
    assert.equal(first.headers['x-ratelimit-limit'], '2', 'the failed-auth bucket holds 2');
    assert.equal(first.headers['x-ratelimit-remaining'], '1');
    assert.equal((await getPets(apiUrl, 'not-a-key-0123456789', '203.0.113.1')).status, 401);
    const refused = await getPets(apiUrl, key, '203.0.113.1');
    assert.deepEqual([refused.status, refused.code], [429, 'rate_limited'], 'refused before its key is looked at');
    assert.equal(refused.headers['x-ratelimit-limit'], '2');

    // Another address's failure takes the table's only place: the first is forgotten and starts full.
    assert.equal((await getPets(apiUrl, 'not-a-key-0123456789', '203.0.113.2')).status, 401);
    assert.equal((await getPets(apiUrl, key, '203.0.113.1')).status, 200);
  } finally {
    await stop(child);
  }
});

test('ANIMAL_STORE_REFUSALS_BEFORE_BAN=1, _BAN_MS=5000, _REFUSAL_WINDOW_MS=3000: a second refusal within the window starts a 5 s ban, one after it none', async () => {
  const quick = 'ban-quick-key-0123456789';
  const slow = 'ban-slow-key-0123456789';
  const child = runCli(['serve', '--port', '0', '--data-dir', join(dataDir, 'env')], {
    // One request a minute, so every further request is refused.
    ANIMAL_STORE_KEYS: `${quick}:enterprise:1:1000,${slow}:enterprise:1:1000`,
    ANIMAL_STORE_REFUSALS_BEFORE_BAN: '1',
    ANIMAL_STORE_BAN_MS: '5000',
    ANIMAL_STORE_REFUSAL_WINDOW_MS: '3000',
    ANIMAL_STORE_LOG_LEVEL: 'warn',
  });
  try {
    const apiUrl = await waitForListening(child);
    assert.equal((await getPets(apiUrl, quick)).status, 200);
    // Sent together, so that even a slow machine answers both well within the 3 s window.
    const refusals = await Promise.all([getPets(apiUrl, quick), getPets(apiUrl, quick)]);
    assert.deepEqual(
      refusals.map((refusal) => refusal.code),
      ['rate_limited', 'rate_limited'],
      'the ban-starting refusal is still rate_limited',
    );
    const banned = await getPets(apiUrl, quick);
    assert.deepEqual([banned.status, banned.code], [429, 'temporarily_banned']);
    const retryAfter = Number(banned.headers['retry-after']);
    assert.ok(
      retryAfter >= 1 && retryAfter <= 5,
      `Retry-After ${String(banned.headers['retry-after'])} is within the 5 s ban`,
    );

    // Refusals further apart than the window are not counted together. (Real time: the gap can only
    // be longer than asked, which keeps them apart.)
    assert.equal((await getPets(apiUrl, slow)).status, 200);
    assert.equal((await getPets(apiUrl, slow)).code, 'rate_limited');
    await sleep(3100);
    assert.equal((await getPets(apiUrl, slow)).code, 'rate_limited');
    assert.equal(
      (await getPets(apiUrl, slow)).code,
      'rate_limited',
      'not banned: the second refusal came a window after the first, so it started no ban (this third one does)',
    );
  } finally {
    await stop(child);
  }
});
