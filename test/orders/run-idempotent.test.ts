import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/clock.js';
import { ApiError } from '../../src/errors.js';
import { bodyFingerprint, canonicalJson } from '../../src/idempotency/canonical-json.js';
import { IdempotencyStore } from '../../src/idempotency/idempotency-store.js';
import { runIdempotent } from '../../src/idempotency/run-idempotent.js';

const clock = new ManualClock(Date.UTC(2027, 0, 1));
const request = { scope: 'key_1 POST /pets', key: 'k' };

test('equal JSON values have the same canonical text, whatever their key order', () => {
  assert.equal(canonicalJson({ b: [1, { d: 2, c: 3 }], a: 'x' }), '{"a":"x","b":[1,{"c":3,"d":2}]}');
  assert.equal(bodyFingerprint(JSON.parse('{"name":"a","categoryId":3.0}')), bodyFingerprint({ categoryId: 3, name: 'a' }));
  assert.notEqual(bodyFingerprint({ categoryId: 3 }), bodyFingerprint({ categoryId: 4 }));
});

test('a repeat while the first request is still in flight is 409, and the key is free again once it failed', async () => {
  const store = new IdempotencyStore(clock);
  let release: (() => void) | undefined;
  const first = runIdempotent(store, request, { a: 1 }, clock.now(), async (tagFor) => {
    await new Promise<void>((resolve) => { release = resolve; });
    const tag = tagFor({ status: 201, location: '/x' });
    assert.ok(tag);
    throw new ApiError('unavailable');
  });
  await assert.rejects(runIdempotent(store, request, { a: 1 }, clock.now(), async () => ({ status: 201, body: '{}', location: '/y' })),
    (error: unknown) => error instanceof ApiError && error.code === 'conflict' && /still in progress/.test(error.message));
  release?.();
  await assert.rejects(first, (error: unknown) => error instanceof ApiError && error.code === 'unavailable');
  const retry = await runIdempotent(store, request, { a: 1 }, clock.now(), async () => ({ status: 201, body: '{"ok":1}', location: '/z' }));
  assert.equal(retry.body, '{"ok":1}', 'a failed first attempt is not remembered');
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
