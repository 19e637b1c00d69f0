// Verifying a delivery as a receiver: the headers in any form and case, the timestamp tolerance on an
// injected clock, any one matching v1 signature among several, and a coded error for every refusal.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeWebhookSecret, signatureHeaders } from '../../src/webhooks/signature.js';
import {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationFailure,
} from '../../src/webhooks/verify-webhook.js';

const SECRET = 'whsec_' + Buffer.alloc(32, 7).toString('base64');
const OTHER_SECRET = 'whsec_' + Buffer.alloc(32, 8).toString('base64');
const NOW_S = 1_700_000_000;
const EVENT = { id: 'evt_01HF0000000000000000000000', type: 'pet.created', data: { id: 1, name: 'Rex' } };
const BODY = JSON.stringify(EVENT);

function signed(secrets: readonly string[] = [SECRET], timestampSeconds = NOW_S, body = BODY): Record<string, string> {
  return { ...signatureHeaders(secrets, EVENT.id, timestampSeconds, body) };
}

function refusal(code: WebhookVerificationFailure) {
  return (error: unknown) => {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    assert.equal(error.code, code);
    assert.equal(error.name, 'WebhookVerificationError');
    return true;
  };
}

test('a delivery signed with the secret verifies and yields its parsed body', () => {
  assert.deepEqual(verifyWebhook(SECRET, signed(), BODY, { nowSeconds: NOW_S }), EVENT);
  // Typed as the events the service sends (the receiver examples read these fields under strict TypeScript).
  const event = verifyWebhook(SECRET, signed(), BODY, { nowSeconds: NOW_S });
  assert.equal(event.id, EVENT.id);
  assert.equal(event.type, EVENT.type);
});

test('the secret may come with or without whsec_, or decoded once', () => {
  for (const secret of [SECRET.slice('whsec_'.length), decodeWebhookSecret(SECRET)]) {
    assert.deepEqual(verifyWebhook(secret, signed(), BODY, { nowSeconds: NOW_S }), EVENT);
  }
});

test('the body may be the raw bytes as received', () => {
  assert.deepEqual(verifyWebhook(SECRET, signed(), Buffer.from(BODY), { nowSeconds: NOW_S }), EVENT);
});

test('header names are matched whatever their case, in a record or a Headers object', () => {
  const headers = signed();
  const shouting = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
  assert.deepEqual(verifyWebhook(SECRET, shouting, BODY, { nowSeconds: NOW_S }), EVENT);
  const fetchHeaders = new Headers({ 'Webhook-Id': headers['webhook-id']!, 'Webhook-Timestamp': String(NOW_S) });
  fetchHeaders.set('WEBHOOK-SIGNATURE', headers['webhook-signature']!);
  assert.deepEqual(verifyWebhook(SECRET, fetchHeaders, BODY, { nowSeconds: NOW_S }), EVENT);
});

test('a signature header repeated on several lines (an array in node) is read as one list', () => {
  const headers = signed();
  const split = { ...headers, 'webhook-signature': ['v1,bm90IGl0', headers['webhook-signature']!] };
  assert.deepEqual(verifyWebhook(SECRET, split, BODY, { nowSeconds: NOW_S }), EVENT);
});

test('a signature header sent on two lines, joined by ", " as node and Headers do, is read as one list', () => {
  const headers = signed();
  const fetchHeaders = new Headers({ 'webhook-id': headers['webhook-id']!, 'webhook-timestamp': String(NOW_S) });
  fetchHeaders.append('webhook-signature', 'v1,bm90IGl0');
  fetchHeaders.append('webhook-signature', headers['webhook-signature']!);
  assert.equal(fetchHeaders.get('webhook-signature'), `v1,bm90IGl0, ${headers['webhook-signature']!}`);
  assert.deepEqual(verifyWebhook(SECRET, fetchHeaders, BODY, { nowSeconds: NOW_S }), EVENT);
  const nodeJoined = { ...headers, 'webhook-signature': `${headers['webhook-signature']!}, v1,bm90IGl0` };
  assert.deepEqual(verifyWebhook(SECRET, nodeJoined, BODY, { nowSeconds: NOW_S }), EVENT);
});

test('during a rotation either secret verifies the message signed with both', () => {
  const headers = signed([OTHER_SECRET, SECRET]);
  assert.deepEqual(verifyWebhook(SECRET, headers, BODY, { nowSeconds: NOW_S }), EVENT);
  assert.deepEqual(verifyWebhook(OTHER_SECRET, headers, BODY, { nowSeconds: NOW_S }), EVENT);
});

test('one matching v1 signature among others suffices; other versions and malformed entries are skipped', () => {
  const good = signed()['webhook-signature']!;
  const digest = good.slice(3);
  const headers = {
    ...signed(),
    'webhook-signature': `v1a,${digest} v2,${digest} nocomma  v1,${'A'.repeat(43)}= ${good} v1,short`,
  };
  assert.deepEqual(verifyWebhook(SECRET, headers, BODY, { nowSeconds: NOW_S }), EVENT);
  // The right digest under another version name does not count.
  const onlyOthers = { ...signed(), 'webhook-signature': `v1a,${digest} v2,${digest} V1,${digest}` };
  assert.throws(() => verifyWebhook(SECRET, onlyOthers, BODY, { nowSeconds: NOW_S }), refusal('no_matching_signature'));
});

test('a changed body, id or timestamp, or another secret, matches no signature', () => {
  const headers = signed();
  const options = { nowSeconds: NOW_S };
  assert.throws(() => verifyWebhook(SECRET, headers, BODY + ' ', options), refusal('no_matching_signature'));
  assert.throws(() => verifyWebhook(OTHER_SECRET, headers, BODY, options), refusal('no_matching_signature'));
  assert.throws(
    () => verifyWebhook(SECRET, { ...headers, 'webhook-id': 'evt_other' }, BODY, options),
    refusal('no_matching_signature'),
  );
  assert.throws(
    () => verifyWebhook(SECRET, { ...headers, 'webhook-timestamp': String(NOW_S + 1) }, BODY, options),
    refusal('no_matching_signature'),
  );
});

test('a missing or empty header is refused, naming it', () => {
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const without = signed();
    delete without[name];
    assert.throws(() => verifyWebhook(SECRET, without, BODY, { nowSeconds: NOW_S }), refusal('missing_header'));
    assert.throws(() => verifyWebhook(SECRET, without, BODY, { nowSeconds: NOW_S }), new RegExp(name));
    assert.throws(
      () => verifyWebhook(SECRET, { ...signed(), [name]: '' }, BODY, { nowSeconds: NOW_S }),
      refusal('missing_header'),
    );
  }
});

test('a timestamp that is not whole Unix seconds is refused', () => {
  for (const timestamp of ['abc', '1700000000.5', '1e9', '-1700000000', '0x6553F100', '1700000000abc']) {
    const headers = { ...signed(), 'webhook-timestamp': timestamp };
    assert.throws(() => verifyWebhook(SECRET, headers, BODY, { nowSeconds: NOW_S }), refusal('invalid_timestamp'));
  }
});

test('the timestamp may be up to 5 minutes either side of the clock, and no more', () => {
  for (const skew of [-300, 300]) {
    assert.deepEqual(verifyWebhook(SECRET, signed([SECRET], NOW_S + skew), BODY, { nowSeconds: NOW_S }), EVENT);
  }
  assert.throws(
    () => verifyWebhook(SECRET, signed([SECRET], NOW_S - 301), BODY, { nowSeconds: NOW_S }),
    refusal('timestamp_too_old'),
  );
  assert.throws(
    () => verifyWebhook(SECRET, signed([SECRET], NOW_S + 301), BODY, { nowSeconds: NOW_S }),
    refusal('timestamp_too_new'),
  );
});

test('the tolerance can be set', () => {
  const headers = signed([SECRET], NOW_S - 30);
  assert.throws(
    () => verifyWebhook(SECRET, headers, BODY, { nowSeconds: NOW_S, toleranceSeconds: 29 }),
    refusal('timestamp_too_old'),
  );
  assert.deepEqual(verifyWebhook(SECRET, headers, BODY, { nowSeconds: NOW_S, toleranceSeconds: 30 }), EVENT);
});

test('without a clock option the real time is used', () => {
  const nowSeconds = Math.floor(Date.now() / 1000);
  assert.deepEqual(verifyWebhook(SECRET, signed([SECRET], nowSeconds), BODY), EVENT);
  // A day away is out of any plausible drift while this test runs.
  assert.throws(() => verifyWebhook(SECRET, signed([SECRET], nowSeconds - 86_400), BODY), refusal('timestamp_too_old'));
});

test('a correctly signed body that is not JSON (or not UTF-8) is refused as invalid_json', () => {
  for (const body of ['', 'not json', Buffer.from([0x7b, 0xff, 0x7d])]) {
    const headers = signatureHeaders([SECRET], EVENT.id, NOW_S, body);
    assert.throws(() => verifyWebhook(SECRET, { ...headers }, body, { nowSeconds: NOW_S }), refusal('invalid_json'));
  }
});

test('a secret that is not base64 is a programmer error (TypeError), not a refused delivery', () => {
  assert.throws(() => verifyWebhook('whsec_not base64!', signed(), BODY, { nowSeconds: NOW_S }), TypeError);
});
