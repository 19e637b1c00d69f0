// Standard Webhooks v1 signing on its own: the reference libraries' published vector, the header
// layout, one signature per secret in force, and the secret format.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { inspect } from 'node:util';
import {
  decodeWebhookSecret,
  newWebhookSecret,
  signatureHeaders,
  WEBHOOK_SECRET_BYTES,
} from '../../src/webhooks/signature.js';

// The vector of the reference libraries' "sign function" tests (JavaScript, Python and the others in
// the standard-webhooks repository); the specification text itself gives no secret with its examples.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  messageId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampSeconds: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const SECRET_A = 'whsec_' + Buffer.alloc(32, 1).toString('base64');
const SECRET_B = 'whsec_' + Buffer.alloc(32, 2).toString('base64');

/** The signature computed from the specification's words alone, with node:crypto. */
function independentSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

test('the reference libraries’ test vector signs to its published signature', () => {
  const headers = signatureHeaders([VECTOR.secret], VECTOR.messageId, VECTOR.timestampSeconds, VECTOR.body);
  assert.deepEqual(headers, {
    'webhook-id': VECTOR.messageId,
    'webhook-timestamp': '1614265330',
    'webhook-signature': VECTOR.signature,
  });
  assert.equal(
    independentSignature(VECTOR.secret, VECTOR.messageId, VECTOR.timestampSeconds, VECTOR.body),
    VECTOR.signature,
  );
});

test('a secret without its whsec_ prefix, or decoded beforehand, signs the same', () => {
  const bare = VECTOR.secret.slice('whsec_'.length);
  for (const secret of [bare, decodeWebhookSecret(VECTOR.secret), decodeWebhookSecret(bare)]) {
    const headers = signatureHeaders([secret], VECTOR.messageId, VECTOR.timestampSeconds, VECTOR.body);
    assert.equal(headers['webhook-signature'], VECTOR.signature);
  }
});

test('each of many secrets signs with its own key, also once more secrets were used than are kept decoded', () => {
  const secrets = Array.from({ length: 1100 }, (_, index) => {
    const bytes = Buffer.alloc(32);
    bytes.writeUInt32BE(index);
    return 'whsec_' + bytes.toString('base64');
  });
  for (const round of [1, 2]) {
    for (const secret of [...secrets.slice(0, 3), ...secrets, ...secrets.slice(0, 3)]) {
      const headers = signatureHeaders([secret], 'evt_1', 1_700_000_000 + round, '{}');
      assert.equal(headers['webhook-signature'], independentSignature(secret, 'evt_1', 1_700_000_000 + round, '{}'));
    }
  }
});

test('a body given as bytes signs as the same text in UTF-8', () => {
  const body = '{"name":"Zoë 🐈"}';
  const fromText = signatureHeaders([SECRET_A], 'evt_1', 1_700_000_000, body);
  const fromBytes = signatureHeaders([SECRET_A], 'evt_1', 1_700_000_000, new TextEncoder().encode(body));
  assert.deepEqual(fromBytes, fromText);
  assert.equal(fromText['webhook-signature'], independentSignature(SECRET_A, 'evt_1', 1_700_000_000, body));
});

test('with two secrets in force the header carries both signatures, space-separated, in the given order', () => {
  const body = '{"id":"evt_1","type":"pet.created"}';
  const headers = signatureHeaders([SECRET_A, SECRET_B], 'evt_1', 1_700_000_000, body);
  assert.equal(
    headers['webhook-signature'],
    `${independentSignature(SECRET_A, 'evt_1', 1_700_000_000, body)} ${independentSignature(SECRET_B, 'evt_1', 1_700_000_000, body)}`,
  );
});

test('the id, the timestamp and the body are all signed', () => {
  const base = signatureHeaders([SECRET_A], 'evt_1', 1_700_000_000, '{}')['webhook-signature'];
  assert.notEqual(signatureHeaders([SECRET_A], 'evt_2', 1_700_000_000, '{}')['webhook-signature'], base);
  assert.notEqual(signatureHeaders([SECRET_A], 'evt_1', 1_700_000_001, '{}')['webhook-signature'], base);
  assert.notEqual(signatureHeaders([SECRET_A], 'evt_1', 1_700_000_000, '{ }')['webhook-signature'], base);
  assert.notEqual(signatureHeaders([SECRET_B], 'evt_1', 1_700_000_000, '{}')['webhook-signature'], base);
});

test('signing refuses no secret, an id with a dot or empty, and a timestamp that is not whole seconds', () => {
  assert.throws(() => signatureHeaders([], 'evt_1', 1, '{}'), TypeError);
  // A dot in the id would let "a.b" + "c" and "a" + "b.c" sign the same text.
  assert.throws(() => signatureHeaders([SECRET_A], 'evt.1', 1, '{}'), /hold no "\."/);
  assert.throws(() => signatureHeaders([SECRET_A], '', 1, '{}'), TypeError);
  for (const timestamp of [1.5, -1, Number.NaN, 1_700_000_000_000_000_000]) {
    assert.throws(() => signatureHeaders([SECRET_A], 'evt_1', timestamp, '{}'), /timestampSeconds/);
  }
});

test('a new secret is whsec_ and the base64 of 32 bytes from the random source', () => {
  const bytes = Uint8Array.from({ length: 32 }, (_, index) => index);
  const secret = newWebhookSecret((size) => {
    assert.equal(size, WEBHOOK_SECRET_BYTES);
    return bytes;
  });
  assert.equal(secret, 'whsec_' + Buffer.from(bytes).toString('base64'));
  assert.match(newWebhookSecret(), /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.notEqual(newWebhookSecret(), newWebhookSecret());
  assert.throws(() => newWebhookSecret(() => new Uint8Array(31)), /32 bytes/);
});

test('a secret that is not base64 is refused rather than decoded into another key', () => {
  for (const secret of ['whsec_', '', 'whsec_abc!def', 'whsec_A', 'whsec_AB=C', 'whsec_MfKQ 9r8G', 'whsec_YQ===']) {
    assert.throws(() => decodeWebhookSecret(secret), TypeError, secret);
  }
  // Unpadded base64 is accepted, as the reference Python library does.
  assert.equal(decodeWebhookSecret('whsec_YQ').export().toString(), 'a');
  assert.equal(decodeWebhookSecret('whsec_YWI').export().toString(), 'ab');
});

test('a decoded secret shows no key material when logged', () => {
  const key = decodeWebhookSecret(SECRET_A);
  assert.ok(!inspect(key).includes(Buffer.alloc(32, 1).toString('hex')));
  assert.ok(!inspect(key).includes(SECRET_A.slice(6, 20)));
});
