// Event, subscription and attempt ids: a prefix and a ULID-shaped body (48-bit milliseconds, 80 bits
// drawn per millisecond), growing within a process whatever the clock does, unique across processes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { ID_BODY_LENGTH, newAttemptId, newSubscriptionId, TimeSortedIds } from '../../src/webhooks/ids.js';

const CROCKFORD_BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const T0_MS = Date.UTC(2030, 0, 1);

/** The number a run of Crockford base32 characters spells (exact up to 2^53). */
function decode(text: string): number {
  let value = 0;
  for (const char of text) value = value * 32 + CROCKFORD_BASE32.indexOf(char);
  return value;
}

/** A random source that hands out the given bytes, cycling; counts its calls. */
function scriptedRandom(pattern: readonly number[]) {
  const source = {
    calls: 0,
    fill(bytes: Uint8Array): void {
      source.calls += 1;
      for (let index = 0; index < bytes.length; index += 1) bytes[index] = pattern[index % pattern.length]!;
    },
  };
  return source;
}

test('ids are the prefix and 26 Crockford base32 characters', () => {
  assert.match(newSubscriptionId(), /^wh_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.match(newAttemptId(), /^att_[0-9A-HJKMNP-TV-Z]{26}$/);
  assert.equal(ID_BODY_LENGTH, 26);
});

test('the first 10 characters are the clock in milliseconds, the next 16 the random bytes', () => {
  const random = scriptedRandom([0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc]);
  const ids = new TimeSortedIds({ clock: new ManualClock(T0_MS), fillRandom: random.fill });
  const body = ids.next();
  assert.equal(body.length, 26);
  assert.equal(decode(body.slice(0, 10)), T0_MS);
  assert.equal(decode(body.slice(10, 18)), 0x01_2345_6789);
  assert.equal(decode(body.slice(18)), 0xab_cdef_fedc);
});

test('the largest time and random values encode as in a ULID', () => {
  const ids = new TimeSortedIds({ clock: { now: () => 2 ** 48 - 1 }, fillRandom: (bytes) => bytes.fill(0xff) });
  assert.equal(ids.next(), '7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
});

test('ids made in the same millisecond count up from the first', () => {
  const random = scriptedRandom([0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xfe]);
  const ids = new TimeSortedIds({ clock: new ManualClock(T0_MS), fillRandom: random.fill });
  const [first, second, third] = [ids.next(), ids.next(), ids.next()];
  // The low 40 bits go 2^40 − 2, 2^40 − 1, then carry into the high 40 bits.
  assert.equal(decode(first!.slice(10)), 2 ** 40 - 2);
  assert.equal(decode(second!.slice(10)), 2 ** 40 - 1);
  assert.equal(decode(third!.slice(10)), 2 ** 40);
  assert.ok(first! < second! && second! < third!);
});

test('ids keep growing when the clock steps back', () => {
  const clock = new ManualClock(T0_MS);
  const ids = new TimeSortedIds({ clock, fillRandom: scriptedRandom([7]).fill });
  const before = ids.next();
  clock.stepWall(-60_000);
  const after = ids.next();
  assert.ok(after > before);
  assert.equal(decode(after.slice(0, 10)), T0_MS);
});

test('ids sort by creation time, and each new millisecond draws new random bits', () => {
  const clock = new ManualClock(T0_MS);
  // Each millisecond's 10 bytes are smaller than the last's, so only the time can put the ids in order.
  const ids = new TimeSortedIds({
    clock,
    fillRandom: (bytes) => bytes.forEach((_, index) => (bytes[index] = 255 - Math.floor(index / 10))),
  });
  const made: string[] = [];
  for (let index = 0; index < 200; index += 1) {
    made.push(ids.next());
    clock.advance(1);
  }
  assert.deepEqual([...made].sort(), made);
  const randomParts = made.map((id) => id.slice(10));
  assert.equal(new Set(randomParts).size, made.length);
  assert.ok(randomParts[1]! < randomParts[0]!);
});

test('random bytes are fetched in bulk, not once per id', () => {
  const clock = new ManualClock(T0_MS);
  const random = scriptedRandom([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  const ids = new TimeSortedIds({ clock, fillRandom: random.fill });
  for (let index = 0; index < 256; index += 1) {
    ids.next();
    clock.advance(1);
  }
  assert.equal(random.calls, 1);
  ids.next();
  assert.equal(random.calls, 2);
});

test('two generators on the same clock, as two processes, make different ids', () => {
  const clock = new ManualClock(T0_MS);
  const one = new TimeSortedIds({ clock });
  const other = new TimeSortedIds({ clock });
  const made = new Set<string>();
  for (let index = 0; index < 1000; index += 1) {
    made.add(one.next());
    made.add(other.next());
  }
  assert.equal(made.size, 2000);
});

test('a clock outside what 48 bits of milliseconds hold is a RangeError', () => {
  for (const now of [-1, 2 ** 48, Number.NaN]) {
    assert.throws(() => new TimeSortedIds({ clock: { now: () => now } }).next(), RangeError);
  }
});

test('a generator passed to the id functions is the one used', () => {
  const ids = new TimeSortedIds({ clock: new ManualClock(0), fillRandom: (bytes) => bytes.fill(0) });
  assert.equal(newAttemptId(ids), 'att_' + '0'.repeat(26));
  assert.equal(newSubscriptionId(ids), 'wh_' + '0'.repeat(25) + '1');
  assert.equal(newAttemptId(ids), 'att_' + '0'.repeat(25) + '2');
});
