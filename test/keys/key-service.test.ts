// The key operations speak of plans and limits: a request that cannot be done is a KeyProblem with a
// code and the plan, limit, id or key at fault, never a flag or a command; the caller words it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { generateKey, hashKey } from '../../src/keys/api-key.js';
import { KeyProblem, type KeyProblemDetail } from '../../src/keys/key-problem.js';
import { KeyService } from '../../src/keys/key-service.js';
import { MemoryKeyTable } from '../../src/store/embedded/memory-key-table.js';

const NOW = Date.parse('2027-03-04T05:06:07.000Z');

function service(): { keys: KeyService; table: MemoryKeyTable } {
  const table = new MemoryKeyTable();
  return { keys: new KeyService(table, new ManualClock(NOW)), table };
}

/** Asserts that `work` fails with a KeyProblem of exactly `detail`, worded without the command line's terms. */
async function rejectsWith(work: Promise<unknown>, detail: KeyProblemDetail): Promise<void> {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof KeyProblem, String(error));
    assert.deepEqual(error.detail, detail);
    assert.doesNotMatch(error.message, /--|animal-store|ANIMAL_STORE/, 'no flag, command or variable');
    return true;
  });
}

test('a created key is returned once; its record keeps the hash, the plan and its limits, and the time', async () => {
  const { keys, table } = service();
  const { key, record } = await keys.create({ plan: 'pro', name: 'mobile app' });
  assert.match(key, /^ask_[0-9A-Za-z]{36}$/);
  assert.deepEqual(record, {
    id: record.id,
    name: 'mobile app',
    plan: 'pro',
    perMinute: 300,
    perDay: 10_000,
    hash: hashKey(key),
    createdAt: '2027-03-04T05:06:07.000Z',
    revokedAt: null,
  });
  assert.match(record.id, /^key_[0-9a-f]{8}$/);
  assert.deepEqual(await table.list(), [record]);
  const enterprise = await keys.create({ plan: 'enterprise', perMinute: 5000, perDay: 2_000_000 });
  assert.deepEqual([enterprise.record.perMinute, enterprise.record.perDay], [5000, 2_000_000]);
});

test('a bad plan or bad limits is a KeyProblem naming the plan or the limit, and nothing is stored', async () => {
  const { keys, table } = service();
  await rejectsWith(keys.create({ plan: 'gold' }), { code: 'unknown_plan', plan: 'gold' });
  await rejectsWith(keys.create({ plan: 'pro', perDay: 5 }), { code: 'custom_limits_not_allowed', plan: 'pro' });
  await rejectsWith(keys.create({ plan: 'enterprise', perMinute: 5000 }), {
    code: 'enterprise_needs_limits',
    missing: ['perDay'],
  });
  await rejectsWith(keys.create({ plan: 'enterprise' }), {
    code: 'enterprise_needs_limits',
    missing: ['perMinute', 'perDay'],
  });
  await rejectsWith(keys.create({ plan: 'enterprise', perMinute: 0, perDay: 10 }), {
    code: 'invalid_limit',
    limit: 'perMinute',
    value: 0,
  });
  await rejectsWith(keys.create({ plan: 'enterprise', perMinute: 10, perDay: 1.5 }), {
    code: 'invalid_limit',
    limit: 'perDay',
    value: 1.5,
  });
  assert.deepEqual(await table.list(), []);
});

test('the first key is made like any other (free plan), and only while no key is active', async () => {
  const { keys, table } = service();
  const first = await keys.createFirst();
  assert.match(first ?? '', /^ask_[0-9A-Za-z]{36}$/);
  const [record] = await table.list();
  assert.deepEqual(record, {
    id: record?.id,
    name: 'first key',
    plan: 'free',
    perMinute: 60,
    perDay: 1000,
    hash: hashKey(first ?? ''),
    createdAt: '2027-03-04T05:06:07.000Z',
    revokedAt: null,
  });
  assert.equal(await keys.createFirst(), undefined, 'an active key exists: no second first key');
  await keys.revoke(record?.id ?? '');
  assert.notEqual(await keys.createFirst(), undefined, 'with every key revoked, a new first key is made');
});

test('revoke and check say which id or key is at fault, and why', async () => {
  const { keys } = service();
  await rejectsWith(keys.revoke('key_00000000'), { code: 'unknown_id', id: 'key_00000000' });
  const { key, record } = await keys.create({ plan: 'free' });
  assert.equal((await keys.check(key)).id, record.id);

  await rejectsWith(keys.check('short'), { code: 'malformed_key' });
  await rejectsWith(keys.check(key.slice(0, -1)), { code: 'wrong_length', length: 39, expected: 40 });
  const typo = `${key.slice(0, 10)}${key[10] === 'a' ? 'b' : 'a'}${key.slice(11)}`;
  await rejectsWith(keys.check(typo), { code: 'bad_checksum' });
  await rejectsWith(keys.check(generateKey()), { code: 'unknown_key' });
  await rejectsWith(keys.check('an-operator-key-never-stored'), { code: 'unknown_key' });

  const revoked = await keys.revoke(record.id);
  assert.equal(revoked.revokedAt, '2027-03-04T05:06:07.000Z');
  assert.deepEqual(await keys.revoke(record.id), revoked, 'a second revoke keeps the first time');
  await rejectsWith(keys.check(key), { code: 'revoked', id: record.id, revokedAt: '2027-03-04T05:06:07.000Z' });
});
