// Standard Webhooks v1 signing (the Standard Webhooks specification 1.0.0, "Signature scheme" and
// "Webhook headers"): a secret is `whsec_` + base64 of the key bytes; a signature is `v1,` + base64 of
// HMAC-SHA256 over `msg_id.timestamp.payload`; `webhook-signature` lists one such signature per secret
// in force, space-separated, so that a receiver holding either the old or the new secret of a
// rotation verifies the message. Pure apart from `newWebhookSecret`'s random bytes.
import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

/** The prefix that marks a symmetric Standard Webhooks secret ("Signature scheme": secret serialization). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/**
 * Key bytes of a secret made by the service: within the specification's 24 to 64, and the length of
 * SHA-256's output, the least that RFC 2104 §3 advises for an HMAC key.
 */
export const WEBHOOK_SECRET_BYTES = 32;

/** The version identifier of a symmetric (HMAC-SHA256) signature ("Signature scheme"). */
export const SIGNATURE_VERSION = 'v1';

/** A secret as text (`whsec_…`, or bare base64) or decoded once with `decodeWebhookSecret`. */
export type WebhookSecret = string | KeyObject;

/**
 * The three headers of a signed delivery ("Webhook headers"), lower-case as HTTP/2 writes them. A type
 * rather than an interface, so that it also passes as a plain header record.
 */
export type WebhookSignatureHeaders = {
  /** The message id: the same on every attempt, so that receivers can de-duplicate on it. */
  'webhook-id': string;
  /** Unix time of this attempt, in whole seconds. */
  'webhook-timestamp': string;
  /** `v1,<base64>` for each secret in force, space-separated. */
  'webhook-signature': string;
};

// Standard base64 (RFC 4648 §4), padding optional as the reference Python library allows. Checked
// because Buffer.from(…, 'base64') skips any character it does not know: a mistyped secret would
// silently become another key.
const BASE64_TEXT = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/** A new secret: `whsec_` + base64 of 32 random bytes. `randomSource` is replaceable for tests. */
export function newWebhookSecret(randomSource: (size: number) => Uint8Array = randomBytes): string {
  const bytes = randomSource(WEBHOOK_SECRET_BYTES);
  if (bytes.length !== WEBHOOK_SECRET_BYTES) {
    throw new TypeError(`randomSource must return ${WEBHOOK_SECRET_BYTES} bytes, not ${bytes.length}`);
  }
  return WEBHOOK_SECRET_PREFIX + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('base64');
}

/**
 * The HMAC key of a secret, with or without its `whsec_` prefix, decoded once so that each later
 * signature costs only the HMAC. A KeyObject also keeps the bytes out of logs (inspecting it shows
 * no key material). Text that is not base64, or decodes to no byte, is a TypeError.
 */
export function decodeWebhookSecret(secret: string): KeyObject {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  if (encoded === '' || !BASE64_TEXT.test(encoded)) {
    throw new TypeError('a webhook secret must be base64 text, optionally prefixed with whsec_');
  }
  return createSecretKey(Buffer.from(encoded, 'base64'));
}

/**
 * Secrets given as text are decoded once: a delivery signs with the same few secrets over and over, and
 * checking, decoding and wrapping one took about 1.5 µs of an attempt's 120. Bounded (cleared when
 * full), as the secrets of deleted or rotated subscriptions are never asked for again.
 */
const DECODED_SECRETS_KEPT = 1024;
const decodedSecrets = new Map<string, KeyObject>();

function keyOf(secret: WebhookSecret): KeyObject {
  if (typeof secret !== 'string') return secret;
  let key = decodedSecrets.get(secret);
  if (key === undefined) {
    key = decodeWebhookSecret(secret);
    if (decodedSecrets.size >= DECODED_SECRETS_KEPT) decodedSecrets.clear();
    decodedSecrets.set(secret, key);
  }
  return key;
}

/**
 * The base64 HMAC-SHA256 of `messageId.timestampSeconds.body` with `key`: the signature without its
 * `v1,` prefix. The id and the timestamp go through the HMAC as one short string and the body as it
 * is, so a large body is never copied into a concatenation.
 */
export function signatureDigest(
  key: KeyObject,
  messageId: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): string {
  return createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.`).update(body).digest('base64');
}

/**
 * The Standard Webhooks headers of one delivery attempt: `webhook-id`, `webhook-timestamp` and a
 * `webhook-signature` holding `v1,<signature>` for each of `secrets`, in their order. During a
 * rotation pass the new secret and the old one, so that a receiver holding either verifies the
 * message ("Webhook headers": zero-downtime rotation). `body` must be exactly the bytes sent.
 * An empty list of secrets, an id that is empty or holds a `.` (the specification forbids it: the
 * dot separates the signed parts), or a timestamp that is not a whole number of seconds ≥ 0 is a
 * TypeError.
 */
export function signatureHeaders(
  secrets: readonly WebhookSecret[],
  messageId: string,
  timestampSeconds: number,
  body: string | Uint8Array,
): WebhookSignatureHeaders {
  if (secrets.length === 0) throw new TypeError('signatureHeaders needs at least one secret');
  if (messageId === '' || messageId.includes('.')) {
    throw new TypeError(`a webhook message id must be non-empty and hold no ".", not ${JSON.stringify(messageId)}`);
  }
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError(`timestampSeconds must be a whole number of seconds ≥ 0, not ${String(timestampSeconds)}`);
  }
  let signatures = '';
  for (const secret of secrets) {
    if (signatures !== '') signatures += ' ';
    signatures += `${SIGNATURE_VERSION},${signatureDigest(keyOf(secret), messageId, timestampSeconds, body)}`;
  }
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures,
  };
}
