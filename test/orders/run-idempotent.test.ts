import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { ApiError } from '../../src/errors.js';
import { bodyFingerprint, canonicalJson } from '../../src/idempotency/canonical-json.js';
import { IdempotencyStore } from '../../src/idempotency/idempotency-store.js';
import { type IdempotencyRequest, runIdempotent } from '../../src/idempotency/run-idempotent.js';

const clock = new ManualClock(Date.UTC(2027, 0, 1));
const scope = 'key_1 POST /pets';

test('equal JSON values have the same canonical text, whatever their key order', () => {
  assert.equal(canonicalJson({ b: [1, { d: 2, c: 3 }], a: 'x' }), '{"a":"x","b":[1,{"c":3,"d":2}]}');
  assert.equal(
    bodyFingerprint(JSON.parse('{"name":"a","categoryId":3.0}')),
    bodyFingerprint({ categoryId: 3, name: 'a' }),
  );
  assert.notEqual(bodyFingerprint({ categoryId: 3 }), bodyFingerprint({ categoryId: 4 }));
});

test('a repeat while the first request is still in flight is 409, and the key is free again once it failed', async () => {
  const store = new IdempotencyStore(clock);
  const arrive = (): { request: IdempotencyRequest; leave(): void } => {
    const arrival = store.arrive(scope, 'k');
    return { request: { scope, key: 'k', ticket: arrival.ticket }, leave: arrival.leave };
  };
  let release: (() => void) | undefined;
  const firstArrival = arrive();
  const first = runIdempotent(store, firstArrival.request, { a: 1 }, clock.now(), async (tagFor) => {
    await new Promise<void>((resolve) => {
      release = resolve;
    });
    const tag = tagFor({ status: 201, location: '/x' });
    assert.ok(tag);
    throw new ApiError('unavailable');
  });
  const repeat = arrive();
  await assert.rejects(
    runIdempotent(store, repeat.request, { a: 1 }, clock.now(), async () => ({
      status: 201,
      body: '{}',
      location: '/y',
    })),
    (error: unknown) =>
      error instanceof ApiError && error.code === 'conflict' && /still in progress/.test(error.message),
  );
  repeat.leave();
  release?.();
  await assert.rejects(first, (error: unknown) => error instanceof ApiError && error.code === 'unavailable');
  firstArrival.leave();
  const retry = arrive();
  const answer = await runIdempotent(store, retry.request, { a: 1 }, clock.now(), async () => ({
    status: 201,
    body: '{"ok":1}',
    location: '/z',
  }));
  assert.equal(answer.body, '{"ok":1}', 'a failed first attempt is not remembered');
  retry.leave();
});

test('arrival order decides who is first: a later arrival whose body is ready first still finds the earlier one in flight', () => {
  const store = new IdempotencyStore(clock);
  const early = store.arrive(scope, 'k');
  const late = store.arrive(scope, 'k');
  assert.equal(store.lookup(scope, 'k', 'f', late.ticket).kind, 'in_flight');
  assert.equal(store.lookup(scope, 'k', 'f', early.ticket).kind, 'new');
  early.leave();
  assert.equal(
    store.lookup(scope, 'k', 'f', late.ticket).kind,
    'new',
    'once the first is answered, the next in line is first',
  );
  late.leave();
  late.leave(); // leaving twice is harmless
  assert.equal(store.lookup(scope, 'k', 'f').kind, 'new');
});

test('without a key the operation simply runs', async () => {
  const store = new IdempotencyStore(clock);
  const answer = await runIdempotent(store, undefined, {}, clock.now(), async (tagFor) => {
    assert.equal(tagFor({ status: 201, location: '/x' }), undefined);
    return { status: 201, body: '{}', location: '/x' };
  });
  assert.deepEqual(answer, { status: 201, body: '{}', headers: { location: '/x' } });
  assert.equal(store.size, 0);
});
