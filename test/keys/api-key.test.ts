import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { generateKey, hashKey, hasValidChecksum, isWellFormedKey, newKeyId } from '../../src/keys/api-key.js';
import { keysFromSpecs, parseKeysVariable } from '../../src/keys/configured-keys.js';
import { KeyRing } from '../../src/keys/key-ring.js';
import { KEYS_FILE, loadKeyFile, saveKeyFile } from '../../src/store/embedded/key-file.js';

test('generated keys start with ask_, are RFC 6750 tokens, differ, and carry a checksum', () => {
  const keys = new Set(Array.from({ length: 200 }, () => generateKey()));
  assert.equal(keys.size, 200);
  for (const key of keys) {
    assert.match(key, /^ask_[0-9A-Za-z]{36}$/);
    assert.ok(isWellFormedKey(key));
    assert.equal(hasValidChecksum(key), true);
  }
});

test('a mistyped generated key fails its checksum; other shapes are not generated keys', () => {
  const key = generateKey();
  const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
  assert.equal(hasValidChecksum(typo), false);
  assert.equal(hasValidChecksum('my-own-operator-key-123'), undefined);
});

test('well-formed keys are 16 to 256 token characters then any "="', () => {
  assert.ok(isWellFormedKey('abcdefghijklmnop'));
  assert.ok(isWellFormedKey('abc-._~+/DEF0123=='));
  for (const bad of [
    'short',
    'x'.repeat(257),
    'has space in the key',
    'abcdefghijklmno=p',
    'abcdefghijklmnop\u0001',
    'ünïcödé-keys-are-out',
  ])
    assert.ok(!isWellFormedKey(bad), bad);
});

test('keys are stored as SHA-256 hashes', () => {
  assert.equal(hashKey('abc'), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.match(newKeyId(), /^key_[0-9a-f]{8}$/);
});

test('ANIMAL_STORE_KEYS takes KEY, KEY:PLAN and KEY:enterprise:PER_MINUTE:PER_DAY', () => {
  const specs = parseKeysVariable('aaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbb:pro ,cccccccccccccccc:enterprise:5000:2000000,');
  const keys = keysFromSpecs(specs, 'ANIMAL_STORE_KEYS');
  assert.deepEqual(
    keys.map((key) => [key.plan, key.perMinute, key.perDay]),
    [
      ['free', 60, 1000],
      ['pro', 300, 10000],
      ['enterprise', 5000, 2000000],
    ],
  );
  assert.equal(keys[1]?.hash, hashKey('bbbbbbbbbbbbbbbb'));
});

test('a bad ANIMAL_STORE_KEYS entry is a TypeError naming it', () => {
  for (const [text, pattern] of [
    ['short:free', /entry 1|key 1/],
    ['aaaaaaaaaaaaaaaa:gold', /unknown plan "gold"/],
    ['aaaaaaaaaaaaaaaa:enterprise', /custom perMinute and perDay/],
    ['aaaaaaaaaaaaaaaa:enterprise:10', /entry 1 needs two positive whole numbers after the plan/],
    ['aaaaaaaaaaaaaaaa:enterprise:x:10', /entry 1 needs two positive whole numbers after the plan/],
    ['aaaaaaaaaaaaaaaa:pro:10:10', /enterprise plan only/],
    ['aaaaaaaaaaaaaaaa:enterprise:1:2:3', /too many ":"/],
    ['aaaaaaaaaaaaaaaa:pro,bbbbbbbbbbbbbbbb,aaaaaaaaaaaaaaaa:free', /key 3 repeats the key of ANIMAL_STORE_KEYS key 1/],
    // Two keys whose SHA-256 hashes begin with the same 32 bits (found by trying), so the same id.
    [
      'collision-key-00011135,collision-key-00040456',
      /key 2 would share the id cfg_d1ebe9f2 with ANIMAL_STORE_KEYS key 1/,
    ],
  ] as const) {
    assert.throws(
      () => keysFromSpecs(parseKeysVariable(text), 'ANIMAL_STORE_KEYS'),
      (error: unknown) => error instanceof TypeError && pattern.test(error.message),
      text,
    );
  }
});

test('the keys file round-trips atomically and a damaged one is refused naming the file', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-keys-'));
  try {
    assert.deepEqual(await loadKeyFile(dir), []);
    const [key] = keysFromSpecs([{ key: 'operator-key-0123456789', plan: 'business', name: 'ops' }], 'test');
    await saveKeyFile(dir, [key!]);
    assert.deepEqual(await loadKeyFile(dir), [key]);
    assert.doesNotMatch(await readFile(join(dir, KEYS_FILE), 'utf8'), /operator-key/);
    await writeFile(join(dir, KEYS_FILE), '{"keys":[{"id":1}]}');
    await assert.rejects(loadKeyFile(dir), /keys\.json: key 1 is damaged/);
    await writeFile(join(dir, KEYS_FILE), 'not json');
    await assert.rejects(loadKeyFile(dir), /keys\.json is not valid JSON/);
    await writeFile(join(dir, KEYS_FILE), '[]');
    await assert.rejects(loadKeyFile(dir), /does not hold a "keys" list/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the key ring finds keys by hash; fixed keys win over stored keys; revoked keys do not count as active', () => {
  const [fixed] = keysFromSpecs([{ key: 'fixed-key-0123456789', plan: 'pro' }], 'test');
  const revoked = { ...fixed!, id: 'key_x', plan: 'free' as const, revokedAt: '2026-01-01T00:00:00Z' };
  const ring = new KeyRing([fixed!], [revoked]);
  assert.equal(ring.findByToken('fixed-key-0123456789')?.plan, 'pro');
  assert.equal(ring.activeCount, 1);
  ring.replaceStoredKeys([]);
  assert.equal(ring.activeCount, 1, 'the fixed key stays');
  assert.equal(ring.findByToken('nope-nope-nope-nope'), undefined);
});

test('a key found by token is remembered until the keys change, so a revocation takes effect at once', () => {
  const [key] = keysFromSpecs([{ key: 'remembered-key-0123456789', plan: 'free' }], 'test');
  const ring = new KeyRing([], [key!]);
  assert.equal(ring.findByToken('remembered-key-0123456789')?.id, key!.id);
  assert.equal(ring.findByToken('remembered-key-0123456789')?.id, key!.id, 'from the cache');
  ring.replaceStoredKeys([{ ...key!, revokedAt: '2027-01-01T00:00:00.000Z' }]);
  assert.notEqual(ring.findByToken('remembered-key-0123456789')?.revokedAt, null);
  assert.equal(ring.findByToken('unknown-key-000000000000'), undefined);
});
