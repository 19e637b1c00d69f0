// Interoperability with `standardwebhooks`, the reference receiver library of the Standard Webhooks
// specification: it verifies what signatureHeaders signs (with one secret or two, holding either),
// verifyWebhook verifies what it signs, and both refuse the same tampering.
//
// The library reads the real clock (Date.now) and offers no way to pass another, so the messages it
// verifies are stamped with the real time, read once per test; its tolerance is 5 minutes, far more
// than a test takes, and the refused timestamps are 10 minutes away, so the outcome never depends on
// how busy the machine is. Our verifyWebhook is given that same time as its clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Webhook, WebhookVerificationError as ReferenceVerificationError } from 'standardwebhooks';
import { newWebhookSecret, signatureHeaders } from '../../src/webhooks/signature.js';
import { verifyWebhook, WebhookVerificationError } from '../../src/webhooks/verify-webhook.js';

// Fixed secrets, so that a failure can be replayed; newWebhookSecret is exercised once below.
const SECRET_OLD = 'whsec_' + Buffer.from('an old secret of thirty-two byte').toString('base64');
const SECRET_NEW = 'whsec_' + Buffer.from('the new secret, thirty-two bytes').toString('base64');
const SECRET_UNRELATED = 'whsec_' + Buffer.from('a secret that signed none of it.').toString('base64');
const EVENT = {
  id: 'evt_01HF5ZQX3Y8T6V2K9M4N7P1R0S',
  type: 'pet.created',
  timestamp: '2024-01-02T03:04:05.678Z',
  data: { id: 42, name: 'Zoë 🐈', categoryId: 3, status: 'available' },
};
const BODY = JSON.stringify(EVENT);
const TEN_MINUTES_S = 600;

function realNowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

function signedByUs(secrets: readonly string[], timestampSeconds: number, body = BODY): Record<string, string> {
  return { ...signatureHeaders(secrets, EVENT.id, timestampSeconds, body) };
}

function signedByReference(secret: string, timestampSeconds: number, body = BODY): Record<string, string> {
  return {
    'webhook-id': EVENT.id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': new Webhook(secret).sign(EVENT.id, new Date(timestampSeconds * 1000), body),
  };
}

test('standardwebhooks verifies a delivery signed with one secret', () => {
  const headers = signedByUs([SECRET_NEW], realNowSeconds());
  assert.deepEqual(new Webhook(SECRET_NEW).verify(BODY, headers), EVENT);
});

test('standardwebhooks verifies a delivery signed with the old and the new secret, holding either', () => {
  const headers = signedByUs([SECRET_OLD, SECRET_NEW], realNowSeconds());
  assert.deepEqual(new Webhook(SECRET_OLD).verify(BODY, headers), EVENT);
  assert.deepEqual(new Webhook(SECRET_NEW).verify(BODY, headers), EVENT);
  assert.throws(() => new Webhook(SECRET_UNRELATED).verify(BODY, headers), ReferenceVerificationError);
});

test('standardwebhooks verifies a delivery signed with a secret from newWebhookSecret, with or without whsec_', () => {
  const secret = newWebhookSecret();
  const headers = signedByUs([secret], realNowSeconds());
  assert.deepEqual(new Webhook(secret).verify(BODY, headers), EVENT);
  assert.deepEqual(new Webhook(secret.slice('whsec_'.length)).verify(BODY, headers), EVENT);
});

test('standardwebhooks refuses what we sign once the body, the secret or the timestamp is wrong, or a header is missing', () => {
  const nowSeconds = realNowSeconds();
  const headers = signedByUs([SECRET_NEW], nowSeconds);
  const receiver = new Webhook(SECRET_NEW);
  assert.throws(() => receiver.verify(BODY.replace('Zoë', 'Zoe'), headers), ReferenceVerificationError);
  assert.throws(() => new Webhook(SECRET_OLD).verify(BODY, headers), ReferenceVerificationError);
  assert.throws(() => receiver.verify(BODY, signedByUs([SECRET_NEW], nowSeconds - TEN_MINUTES_S)), /timestamp too old/);
  assert.throws(() => receiver.verify(BODY, signedByUs([SECRET_NEW], nowSeconds + TEN_MINUTES_S)), /timestamp too new/);
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const without = { ...headers };
    delete without[name];
    assert.throws(() => receiver.verify(BODY, without), /Missing required headers/);
  }
});

test('verifyWebhook verifies what standardwebhooks signs', () => {
  const nowSeconds = 1_700_000_000;
  const headers = signedByReference(SECRET_NEW, nowSeconds);
  assert.deepEqual(verifyWebhook(SECRET_NEW, headers, BODY, { nowSeconds }), EVENT);
  // Its signature is byte for byte ours.
  assert.deepEqual(headers, signedByUs([SECRET_NEW], nowSeconds));
});

test('verifyWebhook refuses what standardwebhooks signs once the body, the secret or the timestamp is wrong, or a header is missing', () => {
  const nowSeconds = 1_700_000_000;
  const headers = signedByReference(SECRET_NEW, nowSeconds);
  const refused = (code: string) => (error: unknown) =>
    error instanceof WebhookVerificationError && error.code === code;
  assert.throws(
    () => verifyWebhook(SECRET_NEW, headers, BODY.replace('42', '43'), { nowSeconds }),
    refused('no_matching_signature'),
  );
  assert.throws(() => verifyWebhook(SECRET_OLD, headers, BODY, { nowSeconds }), refused('no_matching_signature'));
  const stale = signedByReference(SECRET_NEW, nowSeconds - TEN_MINUTES_S);
  assert.throws(() => verifyWebhook(SECRET_NEW, stale, BODY, { nowSeconds }), refused('timestamp_too_old'));
  const early = signedByReference(SECRET_NEW, nowSeconds + TEN_MINUTES_S);
  assert.throws(() => verifyWebhook(SECRET_NEW, early, BODY, { nowSeconds }), refused('timestamp_too_new'));
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const without = { ...headers };
    delete without[name];
    assert.throws(() => verifyWebhook(SECRET_NEW, without, BODY, { nowSeconds }), refused('missing_header'));
  }
});

test('the reference libraries’ sign-function vector is what both sides compute', () => {
  // From the "sign function" test of the reference libraries in the standard-webhooks repository.
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
  const body = '{"test": 2432232314}';
  const id = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
  assert.equal(new Webhook(secret).sign(id, new Date(1614265330_000), body), expected);
  const ours = signatureHeaders([secret], id, 1614265330, body);
  assert.equal(ours['webhook-signature'], expected);
  assert.deepEqual(verifyWebhook(secret, ours, body, { nowSeconds: 1614265330 }), { test: 2432232314 });
});
