// The idempotency module over the embedded store's table: claims from arrival, replay of an equal body,
// 409 for another body or a repeat in flight, nothing remembered for a first attempt that failed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import { bodyFingerprint, canonicalJson } from '../../src/idempotency/canonical-json.js';
import { type Arrival, CLAIM_LEASE_MS, IDEMPOTENCY_TTL_MS, Idempotency } from '../../src/idempotency/idempotency.js';
import { MemoryIdempotencyTable } from '../../src/store/embedded/idempotency-table.js';
import type { IdempotencyRecord, IdempotencyTable } from '../../src/store/store.js';

const clock = new ManualClock(Date.UTC(2027, 0, 1));
const scope = 'key_1 POST /pets';

/** An idempotency module whose "store" keeps what carryOut is given, as a committed change would. */
function setup() {
  const table = new MemoryIdempotencyTable();
  const idempotency = new Idempotency(table, clock);
  const commit = (record: IdempotencyRecord | undefined, json: string) => {
    if (record !== undefined) table.remember({ ...record, body: json }, clock.now());
    return { id: 1, json };
  };
  return { table, idempotency, commit };
}

const isConflict = (pattern: RegExp) => (error: unknown) =>
  error instanceof ApiError && error.code === 'conflict' && pattern.test(error.message);

test('equal JSON values have the same canonical text, whatever their key order', () => {
  assert.equal(canonicalJson({ b: [1, { d: 2, c: 3 }], a: 'x' }), '{"a":"x","b":[1,{"c":3,"d":2}]}');
  assert.equal(
    bodyFingerprint(JSON.parse('{"name":"a","categoryId":3.0}')),
    bodyFingerprint({ categoryId: 3, name: 'a' }),
  );
  assert.notEqual(bodyFingerprint({ categoryId: 3 }), bodyFingerprint({ categoryId: 4 }));
});

test('a repeat while the first request is still in flight is 409, and the key is free again once it failed', async () => {
  const { idempotency, commit } = setup();
  let release: (() => void) | undefined;
  const firstArrival = await idempotency.arrive(scope, 'k', 201);
  const first = idempotency.run(firstArrival, { a: 1 }, async (record) => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    assert.ok(record);
    throw new ApiError('unavailable');
  });
  const repeat = await idempotency.arrive(scope, 'k', 201);
  await assert.rejects(
    idempotency.run(repeat, { a: 1 }, async (record) => commit(record, '{"id":2}')),
    isConflict(/still in progress/),
  );
  await repeat.leave();
  release?.();
  await assert.rejects(first, (error: unknown) => error instanceof ApiError && error.code === 'unavailable');
  await firstArrival.leave();
  const retry = await idempotency.arrive(scope, 'k', 201);
  const outcome = await idempotency.run(retry, { a: 1 }, async (record) => commit(record, '{"id":1}'));
  assert.deepEqual(
    outcome,
    { replayed: false, item: { id: 1, json: '{"id":1}' } },
    'a failed first attempt is not remembered',
  );
  await retry.leave();
});

test('a later arrival whose body is ready first still finds the earlier one in flight, until it has been answered', async () => {
  const { idempotency, commit } = setup();
  const early = await idempotency.arrive(scope, 'k', 201);
  const late = await idempotency.arrive(scope, 'k', 201);
  assert.equal(early.claimed, true);
  assert.equal(late.claimed, false);
  await assert.rejects(
    idempotency.run(late, { a: 1 }, async (r) => commit(r, '{}')),
    isConflict(/in progress/),
  );
  await idempotency.run(early, { a: 1 }, async (record) => commit(record, '{"id":1}'));
  await early.leave();
  const outcome = await idempotency.run(late, { a: 1 }, async () => assert.fail('carried out twice'));
  assert.deepEqual(outcome, { replayed: true, body: '{"id":1}' }, 'once the first is answered, a repeat replays it');
  await late.leave();
  await late.leave(); // leaving twice is harmless
});

test('repeats of a finished request that arrive together each get its answer, though one holds the claim', async () => {
  const { idempotency, commit } = setup();
  const first = await idempotency.arrive(scope, 'k', 201);
  await idempotency.run(first, { a: 1 }, async (record) => commit(record, '{"id":1}'));
  await first.leave();
  const repeats = [];
  for (let index = 0; index < 3; index++) repeats.push(await idempotency.arrive(scope, 'k', 201));
  assert.deepEqual(
    repeats.map((repeat) => repeat.claimed),
    [true, false, false],
  );
  for (const repeat of repeats)
    assert.deepEqual(await idempotency.run(repeat, { a: 1 }, async () => assert.fail('carried out twice')), {
      replayed: true,
      body: '{"id":1}',
    });
  await assert.rejects(
    idempotency.run(repeats[2], { a: 2 }, async () => assert.fail()),
    isConflict(/different request body/),
  );
  for (const repeat of repeats) await repeat.leave();
});

test('an equal body replays the remembered answer for 24 hours; another body is 409', async () => {
  const { idempotency, commit } = setup();
  const first = await idempotency.arrive(scope, 'k', 201);
  await idempotency.run(first, { name: 'a', categoryId: 3 }, async (record) => commit(record, '{"id":1}'));
  await first.leave();
  const same = await idempotency.arrive(scope, 'k', 201);
  assert.deepEqual(
    await idempotency.run(same, JSON.parse('{"categoryId":3.0,"name":"a"}'), async () => assert.fail()),
    {
      replayed: true,
      body: '{"id":1}',
    },
  );
  await assert.rejects(
    idempotency.run(same, { name: 'b', categoryId: 3 }, async () => assert.fail()),
    isConflict(/different request body/),
  );
  await same.leave();
  clock.advance(IDEMPOTENCY_TTL_MS);
  const later = await idempotency.arrive(scope, 'k', 201);
  const outcome = await idempotency.run(later, { name: 'b', categoryId: 3 }, async (record) =>
    commit(record, '{"id":2}'),
  );
  assert.equal(outcome.replayed, false, 'after 24 hours the key is new again');
  await later.leave();
});

test('without a key the operation simply runs and nothing is remembered', async () => {
  const { table, idempotency } = setup();
  const outcome = await idempotency.run(undefined, {}, async (record) => {
    assert.equal(record, undefined);
    return 'done';
  });
  assert.deepEqual(outcome, { replayed: false, item: 'done' });
  assert.equal(table.size, 0);
});

test('the status an arrival is to be answered with is remembered, and a replay notes the one remembered', async () => {
  const { idempotency, table, commit } = setup();
  const first = await idempotency.arrive(scope, 'queued', 202);
  let remembered: IdempotencyRecord | undefined;
  await idempotency.run(first, { a: 1 }, async (record) => {
    remembered = record;
    return commit(record, '{"id":1}');
  });
  await first.leave();
  assert.equal(remembered?.status, 202);
  assert.equal(first.replayedStatus, undefined, 'carried out, not replayed');
  assert.equal(table.find(scope, 'queued', clock.now())?.status, 202);
  // A repeat whose own answer would be 201 gets the answer remembered, with its status.
  const repeat = await idempotency.arrive(scope, 'queued', 201);
  assert.deepEqual(await idempotency.run(repeat, { a: 1 }, async () => assert.fail()), {
    replayed: true,
    body: '{"id":1}',
  });
  assert.equal(repeat.replayedStatus, 202);
  await repeat.leave();
});

test('a claim on a table whose claims lapse is renewed while its request is in flight, and no longer once it leaves', async () => {
  const renewals: Array<{ claimant: string; untilMs: number }> = [];
  const table = new MemoryIdempotencyTable();
  const lapsing = Object.assign(table, {
    renew: (_scope: string, _key: string, claimant: string, untilMs: number) => {
      renewals.push({ claimant, untilMs });
    },
  });
  const idempotency = new Idempotency(lapsing, clock, { renewEveryMs: 5 });
  const arrival = await idempotency.arrive(scope, 'renewed', 201);
  const deadline = Date.now() + 10_000;
  while (renewals.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(renewals.length >= 2, 'renewed while in flight');
  assert.ok(renewals.every((renewal) => renewal.claimant === arrival.claimant));
  assert.ok(renewals.every((renewal) => renewal.untilMs === clock.now() + CLAIM_LEASE_MS));
  await arrival.leave();
  const renewedBeforeLeaving = renewals.length;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(renewals.length, renewedBeforeLeaving, 'not renewed once it has left');
});

/**
 * A table across a network: each claim and release is decided when the test says, as a server decides
 * what reaches it over several connections, in whatever order it reaches it.
 */
function networkTable() {
  const table = new MemoryIdempotencyTable();
  const undecided: Array<() => void> = [];
  const overNetwork: IdempotencyTable = {
    claim: (scope, key, claimant) =>
      new Promise<boolean>((resolve) => undecided.push(() => resolve(table.claim(scope, key, claimant)))),
    release: (scope, key, claimant) =>
      new Promise<void>((resolve) => undecided.push(() => resolve(table.release(scope, key, claimant)))),
    find: (scope, key, nowMs) => table.find(scope, key, nowMs),
  };
  /** Decides everything sent so far, the latest first; resolves once the promises have run on. */
  const decideLatestFirst = async (): Promise<number> => {
    const sent = undecided.splice(0).reverse();
    for (const decide of sent) decide();
    await new Promise((resolve) => setImmediate(resolve));
    return sent.length;
  };
  return { overNetwork, decideLatestFirst };
}

test('of two arrivals with one key the first is carried out, and a retry after its answer finds the key free, whatever order the table decides in', async () => {
  const { overNetwork, decideLatestFirst } = networkTable();
  const idempotency = new Idempotency(overNetwork, clock);
  const arriving = [idempotency.arrive(scope, 'pipelined', 201), idempotency.arrive(scope, 'pipelined', 201)];
  // The second claim is sent only once the first has been decided, so the table cannot take it first.
  while ((await decideLatestFirst()) > 0);
  const [first, second] = (await Promise.all(arriving)) as [Arrival, Arrival];
  assert.equal(first.claimed, true, 'the first arrival holds the claim');
  assert.equal(second.claimed, false);
  const repeat = assert.rejects(
    idempotency.run(second, { a: 1 }, async () => assert.fail('carried out twice')),
    isConflict(/still in progress/),
  );
  while ((await decideLatestFirst()) > 0);
  await repeat;
  const leaving = first.leave();
  // A retry sent the moment the first is answered, while its release is still on the way.
  const retrying = idempotency.arrive(scope, 'pipelined', 201);
  while ((await decideLatestFirst()) > 0);
  await leaving;
  assert.equal((await retrying).claimed, true, 'the retry finds the key released');
  await second.leave();
});

test('a claim held past any request’s time is no longer held here either: once its lease lapses, the key is free', async () => {
  const ownClock = new ManualClock(Date.UTC(2027, 0, 1));
  const leases = new Map<string, { claimant: string; untilMs: number }>();
  const lapsing: IdempotencyTable = {
    claim: (_scope, key, claimant, nowMs, untilMs) => {
      const lease = leases.get(key);
      if (lease !== undefined && lease.claimant !== claimant && lease.untilMs > nowMs) return false;
      leases.set(key, { claimant, untilMs });
      return true;
    },
    renew: (_scope, key, claimant, untilMs) => {
      if (leases.get(key)?.claimant === claimant) leases.set(key, { claimant, untilMs });
    },
    release: (_scope, key, claimant) => {
      if (leases.get(key)?.claimant === claimant) leases.delete(key);
    },
    find: () => undefined,
  };
  const idempotency = new Idempotency(lapsing, ownClock, { renewEveryMs: 5 });
  const stuck = await idempotency.arrive(scope, 'stuck', 201);
  assert.equal(stuck.claimed, true);
  assert.equal((await idempotency.arrive(scope, 'stuck', 201)).claimed, false, 'held here while in flight');
  // Ten minutes and a lease on, no request is still in flight: the next renewal gives it up, and the
  // lease it was last renewed to has lapsed.
  ownClock.advance(10 * 60 * 1000 + CLAIM_LEASE_MS + 1);
  const deadline = Date.now() + 10_000;
  let later = await idempotency.arrive(scope, 'stuck', 201);
  while (!later.claimed && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    later = await idempotency.arrive(scope, 'stuck', 201);
  }
  assert.equal(later.claimed, true, 'free once its lease has lapsed');
  await later.leave();
  await stuck.leave();
});
