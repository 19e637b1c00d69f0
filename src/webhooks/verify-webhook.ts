// Verifying a Standard Webhooks v1 delivery, for receivers (the Standard Webhooks specification 1.0.0,
// "Verifying signatures"): the three headers must be there, the attempt's timestamp within a
// tolerance of the receiver's clock (a replayed old message is refused), and one of the `v1,`
// signatures must equal the HMAC of `id.timestamp.body`, compared in constant time; other versions
// (such as `v1a`) are skipped. Success returns the JSON payload; every failure is a
// WebhookVerificationError with a `code` to match on. Pure once given `options.nowSeconds`.
import { timingSafeEqual } from 'node:crypto';
import type { Event as WebhookEvent } from './schemas.js';
import { SIGNATURE_VERSION, signatureDigest, type WebhookSecret, decodeWebhookSecret } from './signature.js';

/** How far the attempt's timestamp may be from the receiver's clock, either way: 5 minutes, as in `standardwebhooks`. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** Why a delivery was refused. */
export type WebhookVerificationFailure =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_json';

/** A delivery that must not be trusted (or, with `invalid_json`, a signed body that is not JSON). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly code: WebhookVerificationFailure;

  constructor(code: WebhookVerificationFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Headers with a `get(name)` that ignores case, as the Fetch API's `Headers`. */
export interface HeaderGetter {
  get(name: string): string | null | undefined;
}

/** Headers as an object: node's `IncomingHttpHeaders` (lower-case names) or any record, of any case. */
export type HeaderRecord = Readonly<Record<string, string | readonly string[] | undefined>>;

/** The request headers in either form. */
export type WebhookRequestHeaders = HeaderGetter | HeaderRecord;

/** What `verifyWebhook` may be told besides the message. */
export interface VerifyWebhookOptions {
  /** The receiver's clock, in Unix seconds; `Date.now()` when absent. */
  nowSeconds?: number;
  /** The largest gap between `webhook-timestamp` and `nowSeconds`, either way. */
  toleranceSeconds?: number;
}

// A Unix time in seconds: digits only (parseInt would take "12abc" or "1e3").
const UNIX_SECONDS = /^[0-9]{1,15}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function isHeaderGetter(headers: WebhookRequestHeaders): headers is HeaderGetter {
  return typeof (headers as { get?: unknown }).get === 'function';
}

/** One header by its lower-case name; repeated lines of a list header are joined by a space. */
function headerValue(headers: WebhookRequestHeaders, name: string): string | undefined {
  let value: string | readonly string[] | null | undefined;
  if (isHeaderGetter(headers)) {
    value = headers.get(name);
  } else {
    value = headers[name];
    if (value === undefined) {
      for (const key of Object.keys(headers)) {
        if (key.toLowerCase() === name) {
          value = headers[key];
          break;
        }
      }
    }
  }
  if (value === null || value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.join(' ');
  return text === '' ? undefined : text;
}

function requiredHeader(headers: WebhookRequestHeaders, name: string): string {
  const value = headerValue(headers, name);
  if (value === undefined) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  return value;
}

/**
 * Whether one `v1,<base64>` entry of the space-separated list equals `expected` (the base64 digest as
 * bytes). Entries of another version, or malformed, are skipped. A header sent on two lines reaches a
 * receiver joined by ", " (node's IncomingMessage and the Fetch API both do so), which leaves a comma
 * at the end of an entry: no base64 text ends with one, so it is dropped.
 */
function hasMatchingSignature(signatures: string, expected: Buffer): boolean {
  for (const entry of signatures.split(' ')) {
    const versioned = entry.endsWith(',') ? entry.slice(0, -1) : entry;
    const comma = versioned.indexOf(',');
    if (comma === -1 || versioned.slice(0, comma) !== SIGNATURE_VERSION) continue;
    const given = Buffer.from(versioned.slice(comma + 1));
    // The specification asks for a constant-time comparison: an early exit on the first differing
    // byte would let a sender find a valid signature byte by byte. The length is public (always 44).
    if (given.length === expected.length && timingSafeEqual(given, expected)) return true;
  }
  return false;
}

/**
 * Checks a delivery signed as Standard Webhooks v1 and returns its parsed JSON body: an event as
 * animal-store sends them (`T`, for a sender of other bodies). `secret` is the
 * subscription's secret (`whsec_…` or bare base64; or a key from `decodeWebhookSecret`, to decode it
 * once); `body` must be the raw request body, exactly as received: a body parsed and serialised again
 * does not verify. Throws a WebhookVerificationError when a header is missing, the timestamp is not
 * a whole number or is more than `toleranceSeconds` (default 300) from `nowSeconds`, no `v1`
 * signature matches, or the body is not JSON.
 */
export function verifyWebhook<T = WebhookEvent>(
  secret: WebhookSecret,
  headers: WebhookRequestHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): T {
  const key = typeof secret === 'string' ? decodeWebhookSecret(secret) : secret;
  const messageId = requiredHeader(headers, 'webhook-id');
  const timestampText = requiredHeader(headers, 'webhook-timestamp').trim();
  const signatures = requiredHeader(headers, 'webhook-signature');

  if (!UNIX_SECONDS.test(timestampText)) {
    throw new WebhookVerificationError('invalid_timestamp', 'the webhook-timestamp header is not Unix seconds');
  }
  const timestampSeconds = Number(timestampText);
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // The specification: a timestamp far from now is refused, so that a captured message cannot be replayed later.
  if (nowSeconds - timestampSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_too_old',
      `the message timestamp is more than ${toleranceSeconds} s old`,
    );
  }
  if (timestampSeconds - nowSeconds > toleranceSeconds) {
    throw new WebhookVerificationError(
      'timestamp_too_new',
      `the message timestamp is more than ${toleranceSeconds} s in the future`,
    );
  }

  const expected = Buffer.from(signatureDigest(key, messageId, timestampSeconds, body));
  if (!hasMatchingSignature(signatures, expected)) {
    throw new WebhookVerificationError('no_matching_signature', 'no v1 signature of the message matches');
  }

  try {
    return JSON.parse(typeof body === 'string' ? body : utf8.decode(body)) as T;
  } catch (error) {
    throw new WebhookVerificationError('invalid_json', 'the signed body is not JSON', { cause: error });
  }
}
