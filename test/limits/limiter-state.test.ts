// Saving and restoring the limiter (README "Rate limits"): day buckets and bans are saved on a graceful
// stop and restored at start-up; the day bucket refills for the time the service was down, state
// older than a day is dropped, a ban ends at its wall-clock end, and bad input is ignored.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import type { SavedLimiterState } from '../../src/limits/index.js';
import { PLAN_LIMITS, MemoryLimiter } from '../../src/limits/index.js';
import { burst, headersOf, T0_MS, T0_S } from './helpers.js';

const SMALL_DAY = { perMinute: 100, perDay: 50 }; // one day token every 1,728 s
const FREE = PLAN_LIMITS.free;

/** A fresh process: a new limiter whose monotonic clock starts again at 0, at wall time `wallMs`. */
function restart(saved: unknown, wallMs: number): { clock: ManualClock; limiter: MemoryLimiter } {
  const clock = new ManualClock(wallMs);
  const limiter = new MemoryLimiter(clock);
  limiter.importState(JSON.parse(JSON.stringify(saved)));
  return { clock, limiter };
}

test('the saved state holds day buckets that are not full and running bans, in wall time', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock, { banMs: 3_600_000 });
  burst(limiter, 'used', SMALL_DAY, 40);
  burst(limiter, 'banned', FREE, 91);
  limiter.admitKey('idle', FREE);
  clock.advance(100_000);
  limiter.admitKey('banned', FREE); // still banned: takes nothing
  clock.advance(1_628_000); // 'idle' is full again; 'used' got one token back
  const saved = limiter.exportState();
  assert.deepEqual(saved, {
    version: 1,
    savedAtMs: T0_MS + 1_728_000,
    days: [
      { key: 'used', tokens: 11, capacity: 50, measuredAtMs: T0_MS + 1_728_000 },
      // 60 taken, and 1,728 s of refill at 1,000 per day gives 20 back.
      { key: 'banned', tokens: 960, capacity: 1000, measuredAtMs: T0_MS + 1_728_000 },
    ],
    bans: [{ key: 'banned', untilMs: T0_MS + 3_600_000 }],
  });
});

test("a restart restores a key's day bucket, so it does not get a fresh daily quota", () => {
  const clock = new ManualClock(T0_MS);
  const before = new MemoryLimiter(clock);
  clock.advance(5_000); // the old process's monotonic clock is not the new one's
  burst(before, 'e', SMALL_DAY, 40);
  const { limiter } = restart(before.exportState(), T0_MS + 5_000);
  const next = limiter.admitKey('e', SMALL_DAY);
  assert.equal(headersOf(next)['x-ratelimit-remaining'], '9');
  assert.equal(headersOf(next).ratelimit, '"day";r=9;t=70848');
});

test('a restart after downtime refills the day bucket for the time the service was down', () => {
  const clock = new ManualClock(T0_MS);
  const before = new MemoryLimiter(clock);
  burst(before, 'e', SMALL_DAY, 40);
  const saved = before.exportState();
  const { limiter } = restart(saved, T0_MS + 5 * 1_728_000); // down 8,640 s: 5 tokens back
  assert.equal(headersOf(limiter.admitKey('e', SMALL_DAY))['x-ratelimit-remaining'], '14');
});

test('a restart never refills beyond capacity, and drops state a day old or more', () => {
  const clock = new ManualClock(T0_MS);
  const before = new MemoryLimiter(clock);
  burst(before, 'e', SMALL_DAY, 50);
  const saved = before.exportState();
  const almostADay = restart(saved, T0_MS + 86_400_000 - 1_728_000);
  assert.equal(headersOf(almostADay.limiter.admitKey('e', SMALL_DAY))['x-ratelimit-remaining'], '48');
  const aDay = restart(saved, T0_MS + 86_400_000);
  assert.equal(aDay.limiter.sizes.keys, 0);
  assert.equal(headersOf(aDay.limiter.admitKey('e', SMALL_DAY))['x-ratelimit-remaining'], '49');
});

test('a restart with the wall clock behind the save refills nothing and destroys nothing', () => {
  const clock = new ManualClock(T0_MS);
  const before = new MemoryLimiter(clock);
  burst(before, 'e', SMALL_DAY, 40);
  const { limiter } = restart(before.exportState(), T0_MS - 3_600_000);
  assert.equal(headersOf(limiter.admitKey('e', SMALL_DAY))['x-ratelimit-remaining'], '9');
});

test('a ban survives a restart and ends at its wall-clock end', () => {
  const clock = new ManualClock(T0_MS);
  const before = new MemoryLimiter(clock);
  burst(before, 'k', FREE, 91); // banned until T0 + 900 s
  clock.advance(100_000);
  const saved = before.exportState();
  assert.deepEqual(saved.bans, [{ key: 'k', untilMs: T0_MS + 900_000 }]);

  const { clock: after, limiter } = restart(saved, T0_MS + 400_000); // down 300 s
  const banned = limiter.admitKey('k', FREE);
  assert.equal(banned.refusal, 'temporarily_banned');
  assert.equal(banned.retryAfterSeconds, 500);
  assert.equal(headersOf(banned)['x-ratelimit-reset'], String(T0_S + 900));
  after.advance(500_000);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
});

test('a ban that ended while the service was down is dropped', () => {
  const clock = new ManualClock(T0_MS);
  const before = new MemoryLimiter(clock);
  burst(before, 'k', FREE, 91);
  const { limiter } = restart(before.exportState(), T0_MS + 900_000);
  assert.equal(limiter.admitKey('k', FREE).allowed, true);
});

test('a saved ban keeps its end when the ban length was shortened meanwhile', () => {
  const saved: SavedLimiterState = {
    version: 1,
    savedAtMs: T0_MS,
    days: [],
    bans: [{ key: 'k', untilMs: T0_MS + 60_000 }],
  };
  const clock = new ManualClock(T0_MS + 6_000);
  const limiter = new MemoryLimiter(clock, { banMs: 5_000 });
  limiter.importState(saved);
  assert.equal(limiter.admitKey('k', FREE).retryAfterSeconds, 54);
});

test('a saved ban is never longer than a day or the ban length, whatever its end says', () => {
  const saved: SavedLimiterState = {
    version: 1,
    savedAtMs: T0_MS,
    days: [],
    bans: [{ key: 'k', untilMs: T0_MS + 365 * 86_400_000 }],
  };
  const { limiter } = restart(saved, T0_MS);
  assert.equal(limiter.admitKey('k', FREE).retryAfterSeconds, 86_400);
  const longer = new MemoryLimiter(new ManualClock(T0_MS), { banMs: 2 * 86_400_000 });
  longer.importState(saved);
  assert.equal(longer.admitKey('k', FREE).retryAfterSeconds, 2 * 86_400);
});

test('garbage saved state is ignored and never throws', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  const garbage: unknown[] = [
    undefined,
    null,
    42,
    'state',
    [],
    {},
    { version: 2, days: [{ key: 'k', tokens: 0, capacity: 5, measuredAtMs: T0_MS }] },
    { version: 1, days: 'no', bans: { key: 'k' } },
    new Proxy(
      {},
      {
        get: () => {
          throw new Error('boom');
        },
      },
    ),
  ];
  for (const input of garbage) limiter.importState(input);
  assert.equal(limiter.sizes.keys, 0);
});

test('malformed entries are dropped one by one, and the good ones are kept', () => {
  const clock = new ManualClock(T0_MS);
  const limiter = new MemoryLimiter(clock);
  limiter.importState({
    version: 1,
    days: [
      null,
      'x',
      [],
      { key: '', tokens: 0, capacity: 5, measuredAtMs: T0_MS },
      { key: 'x'.repeat(10_000), tokens: 0, capacity: 5, measuredAtMs: T0_MS },
      { key: 'nan', tokens: Number.NaN, capacity: 5, measuredAtMs: T0_MS },
      { key: 'neg', tokens: -1, capacity: 5, measuredAtMs: T0_MS },
      { key: 'cap0', tokens: 0, capacity: 0, measuredAtMs: T0_MS },
      { key: 'cap-frac', tokens: 0, capacity: 1.5, measuredAtMs: T0_MS },
      { key: 'when', tokens: 0, capacity: 5, measuredAtMs: 'yesterday' },
      { key: 'inf', tokens: 0, capacity: 5, measuredAtMs: Number.POSITIVE_INFINITY },
      { key: 'good', tokens: 1, capacity: 5, measuredAtMs: T0_MS },
    ],
    bans: [
      { key: 'b1', untilMs: '1' },
      { key: 7, untilMs: T0_MS + 1 },
      { key: 'b2', untilMs: Number.NaN },
      { key: 'ban', untilMs: T0_MS + 10_000 },
    ],
  });
  assert.equal(limiter.sizes.keys, 2);
  const limits = { perMinute: 100, perDay: 5 };
  assert.equal(headersOf(limiter.admitKey('good', limits))['x-ratelimit-remaining'], '0');
  assert.equal(limiter.admitKey('ban', limits).refusal, 'temporarily_banned');
  assert.equal(limiter.admitKey('nan', limits).allowed, true);
});

test("a restored day bucket adopts the key's current limits: a smaller plan clamps it", () => {
  const saved: SavedLimiterState = {
    version: 1,
    savedAtMs: T0_MS,
    days: [{ key: 'k', tokens: 900, capacity: 1000, measuredAtMs: T0_MS }],
    bans: [],
  };
  const { limiter } = restart(saved, T0_MS);
  const decision = limiter.admitKey('k', { perMinute: 10, perDay: 20 });
  assert.equal(headersOf(decision)['x-ratelimit-limit'], '10');
  assert.equal(limiter.exportState().days[0]?.tokens, 19);
});

test('a saved state file that is not JSON is dropped at start with a warning naming it, and the limiter starts afresh', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-limits-'));
  try {
    const path = join(dir, 'limits.json');
    await writeFile(path, '{"version":1,"days":[{"key":"k",');
    const warnings: string[] = [];
    const limiter = await MemoryLimiter.open(new ManualClock(T0_MS), undefined, path, (line) => warnings.push(line));
    assert.equal(limiter.sizes.keys, 0);
    assert.equal(warnings.length, 1);
    assert.ok(warnings[0]?.startsWith(`${path} is damaged (`), warnings[0]);
    assert.ok(!existsSync(path), 'removed, as a restored file is');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the state is saved into a data directory that does not exist yet, made private, and restored from it', async () => {
  const root = await mkdtemp(join(tmpdir(), 'animal-store-limits-'));
  try {
    // A store elsewhere (PostgreSQL) makes no data directory of its own.
    const path = join(root, 'not-yet', 'limits.json');
    const limiter = await MemoryLimiter.open(new ManualClock(T0_MS), undefined, path);
    burst(limiter, 'k', SMALL_DAY, 10);
    await limiter.close();
    assert.ok(existsSync(path));
    assert.equal((await stat(join(root, 'not-yet'))).mode & 0o777, 0o700);
    const restored = await MemoryLimiter.open(new ManualClock(T0_MS), undefined, path);
    assert.equal(restored.exportState().days.find((day) => day.key === 'k')?.tokens, SMALL_DAY.perDay - 10);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
