// The checks and encodings that the journal's records share: ids, times, objects, and the
// Idempotency-Key answers that ride along with a change. Pure functions.
import type { IdempotencyRecord } from '../store.js';
import type { IdempotencyEntry } from './idempotency-table.js';

export type Json = Record<string, unknown>;

export const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;
/** A time in ms since the epoch, as records write them (whole milliseconds). */
export const isTime = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The JSON of what a change remembers for its Idempotency-Key, without the answer's body (the item is the body). */
export function tagJson(tag: IdempotencyRecord): string {
  return JSON.stringify({
    scope: tag.scope,
    key: tag.key,
    fingerprint: tag.fingerprint,
    status: tag.status,
    expiresAtMs: tag.expiresAtMs,
  });
}

/** The JSON of a remembered answer with its body. */
export function entryJson(entry: IdempotencyEntry): string {
  return JSON.stringify({
    scope: entry.scope,
    key: entry.key,
    fingerprint: entry.fingerprint,
    status: entry.status,
    expiresAtMs: entry.expiresAtMs,
    body: entry.body,
  });
}

/** A tag as tagJson wrote it; logs of the first release also carry a "location", read and ignored. */
export function decodeTag(value: unknown): IdempotencyRecord | undefined {
  if (!isObject(value)) return undefined;
  const { scope, key, fingerprint, status, location, expiresAtMs } = value;
  if (
    typeof scope !== 'string' ||
    typeof key !== 'string' ||
    typeof fingerprint !== 'string' ||
    !isId(status) ||
    (location !== undefined && typeof location !== 'string') ||
    !Number.isSafeInteger(expiresAtMs)
  )
    return undefined;
  return { scope, key, fingerprint, status, expiresAtMs: expiresAtMs as number };
}

/** An entry as entryJson wrote it. */
export function decodeEntry(value: unknown): IdempotencyEntry | undefined {
  const tag = decodeTag(value);
  const body = isObject(value) ? value.body : undefined;
  return tag === undefined || typeof body !== 'string' ? undefined : { ...tag, body };
}
