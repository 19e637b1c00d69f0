// Equality of request bodies for Idempotency-Key (README "Store orders (beta) and safe retries"): the same JSON value is the
// same body, whatever its key order, spacing, escapes or number spelling (`3` and `3.0`). Parsing
// already undid spacing, escapes and spelling; sorting keys undoes the order.
import { createHash } from 'node:crypto';

/** The canonical text of a parsed JSON value: object keys sorted, no spacing. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A short fingerprint of a parsed body: SHA-256 of its canonical text, base64url. */
export function bodyFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url');
}
