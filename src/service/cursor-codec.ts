// Paging cursors: opaque, signed with HMAC-SHA256 so a client cannot forge one, naming the listing and
// filter that issued it and the last id of the page. The page after it starts right after that id, so
// items created while a client pages through are never skipped or repeated. The secret is the store's,
// shared by every instance, so a cursor outlives restarts and works on any instance.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../core/errors.js';

// 128 bits of the HMAC are plenty to stop forgery (NIST SP 800-107 §5.3.3) and keep cursors short.
const SIGNATURE_BYTES = 16;
/**
 * Cursors issued and checked recently, so a busy listing signs each page boundary once: HMAC was
 * about 6% of the list route's CPU time (bench `list`, node --cpu-prof) before this cache.
 */
const CURSOR_CACHE_ENTRIES = 4096;

/** What a signed cursor says: the listing and filter that issued it, and the last id of its page. */
interface CursorPayload {
  listing: string | undefined;
  filter: string | undefined;
  /** The position as issued: a plain id for pets and orders, a store's own text for events. */
  position: string | undefined;
  /** Undefined when the position is not a plain id. */
  lastId: number | undefined;
}

/** Reads the payload text `listing|filter|position`. */
function parsePayload(text: string): CursorPayload {
  const [listing, filter, position] = text.split('|');
  const isId = position !== undefined && /^(0|[1-9][0-9]{0,15})$/.test(position);
  return { listing, filter, position, lastId: isId ? Number(position) : undefined };
}

/** Remembers `key → value`, dropping the oldest entry past `CURSOR_CACHE_ENTRIES`. */
function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= CURSOR_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(key, value);
}

/** Issues and checks paging cursors with one secret; a secret kept in the data directory keeps cursors valid across restarts. */
export class CursorCodec {
  readonly #secret: Buffer;
  /** Payload text → cursor, for cursors this codec issued. */
  readonly #issued = new Map<string, string>();
  /** Cursor → its payload, for cursors whose signature was checked. */
  readonly #checked = new Map<string, CursorPayload>();

  constructor(secret: Buffer) {
    if (secret.length < 16) throw new TypeError('cursor secret must be at least 16 bytes');
    this.#secret = secret;
  }

  /** A cursor for the page after `lastId`, valid only for `listing` with `filter` ("" for none). */
  issue(listing: string, filter: string, lastId: number): string {
    return this.issuePosition(listing, filter, String(lastId));
  }

  /** A cursor for the page after `position` (text without "|"), valid only for `listing` with `filter`. */
  issuePosition(listing: string, filter: string, position: string): string {
    const text = `${listing}|${filter}|${position}`;
    let cursor = this.#issued.get(text);
    if (cursor === undefined) {
      const payload = Buffer.from(text).toString('base64url');
      cursor = `${payload}.${this.#sign(payload).toString('base64url')}`;
      remember(this.#issued, text, cursor);
    }
    return cursor;
  }

  /** The last id of the previous page, or `invalid_cursor` if this cursor was not issued for `listing` and `filter`. */
  read(cursor: string, listing: string, filter: string): number {
    const payload = this.#checked.get(cursor) ?? this.#check(cursor);
    if (payload.listing === listing && payload.filter === filter && payload.lastId !== undefined) return payload.lastId;
    throw invalidCursor('was issued for another listing or filter');
  }

  /** The position a cursor issued by `issuePosition` for `listing` and `filter` carries; `invalid_cursor` otherwise. */
  readPosition(cursor: string, listing: string, filter: string): string {
    const payload = this.#checked.get(cursor) ?? this.#check(cursor);
    if (payload.listing === listing && payload.filter === filter && payload.position !== undefined)
      return payload.position;
    throw invalidCursor('was issued for another listing or filter');
  }

  /** The payload of a cursor whose signature is right; `invalid_cursor` otherwise. */
  #check(cursor: string): CursorPayload {
    const dot = cursor.indexOf('.');
    if (dot > 0) {
      const payload = cursor.slice(0, dot);
      // Compared as text, not as decoded bytes: base64url decoding skips stray characters, padding and
      // unused trailing bits, so other spellings of the signature would pass for a cursor never issued.
      const given = Buffer.from(cursor.slice(dot + 1));
      const expected = Buffer.from(this.#sign(payload).toString('base64url'));
      if (given.length === expected.length && timingSafeEqual(given, expected)) {
        const parsed = parsePayload(Buffer.from(payload, 'base64url').toString());
        remember(this.#checked, cursor, parsed);
        return parsed;
      }
    }
    throw invalidCursor('was not issued by this service');
  }

  #sign(payload: string): Buffer {
    return createHmac('sha256', this.#secret).update(payload).digest().subarray(0, SIGNATURE_BYTES);
  }
}

/** The refusal of a cursor: the message names the cursor (the value at fault) in the domain's words. */
export function invalidCursor(reason: string): ApiError {
  return new ApiError('invalid_cursor', `The cursor ${reason}; start again from the first page without a cursor`, [
    { path: 'cursor', message: `"cursor" ${reason}` },
  ]);
}
