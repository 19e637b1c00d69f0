// Reading the bearer credential of RFC 6750 §2.1 (README "Rate limits"): scheme case-insensitive,
// one space or more, then a token. Malformed, unknown and revoked keys get the same answer.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/errors.js';
import { type ApiKey, isWellFormedKey } from '../keys/api-key.js';
import { countHeader } from './headers.js';
import { connectionOf } from './http2.js';

/** The same message for every key that cannot be used: it must not tell which of them it was. */
const INVALID_KEY_MESSAGE =
  "The API key in the Authorization header is not valid; send 'Authorization: Bearer <key>' with an active key.";
const MISSING_KEY_MESSAGE = "This request needs an API key: send it in the Authorization header as 'Bearer <key>'.";

/** Keys by their SHA-256; the lookup is a `Map.get` on the hash, so its timing says nothing about other keys. */
export interface KeyLookup {
  findByToken(token: string): ApiKey | undefined;
  /** Changes whenever a key may have been added or revoked. */
  readonly generation: number;
}

/** The Authorization value a connection last authenticated with, the key it named, and when. */
interface Credential {
  header: string;
  key: ApiKey;
  generation: number;
}

/**
 * Per connection, its last accepted credential. A client sends the same Authorization value on every
 * request of a kept-alive connection, so a repeat is recognised by one comparison instead of being
 * parsed, checked and looked up again. It is trusted only while the key set is the one it was found
 * in; a key revoked or added since sends the request through the full check. Weakly held: a closed
 * connection takes its entry with it.
 */
const lastCredential = new WeakMap<object, Credential>();

/** The key a request authenticates with, or a `401 unauthorized` ApiError. */
export function authenticate(req: IncomingMessage, keys: KeyLookup): ApiKey {
  const header = req.headers.authorization;
  if (header === undefined) {
    throw new ApiError('unauthorized', MISSING_KEY_MESSAGE, undefined, {
      headers: { 'www-authenticate': 'Bearer realm="animal-store"' },
    });
  }
  // Node keeps the first of several Authorization fields; a request that sends more is refused.
  const single = countHeader(req, 'authorization') === 1;
  // A request made up by an embedding program may come without a socket: it is checked in full.
  const connection = connectionOf(req);
  const last = connection === null ? undefined : lastCredential.get(connection);
  if (single && last !== undefined && last.header === header && last.generation === keys.generation) return last.key;
  const generation = keys.generation;
  const token = bearerToken(header);
  const key = single && token !== undefined && isWellFormedKey(token) ? keys.findByToken(token) : undefined;
  if (key === undefined || key.revokedAt !== null) {
    throw new ApiError('unauthorized', INVALID_KEY_MESSAGE, undefined, {
      headers: { 'www-authenticate': 'Bearer realm="animal-store", error="invalid_token"' },
    });
  }
  if (connection !== null) lastCredential.set(connection, { header, key, generation });
  return key;
}

/** "bearer" in lower case, by character code. */
const BEARER = [98, 101, 97, 114, 101, 114];
const SPACE = 32;

/**
 * The token of `Bearer <token>`: the scheme in any case, one space or more, then the rest of the
 * value (which isWellFormedKey then checks); undefined when the value does not start so. Read by
 * character code rather than a regular expression: it runs on every request.
 */
export function bearerToken(header: string): string | undefined {
  for (let index = 0; index < BEARER.length; index++) {
    // An ASCII letter's lower case is its code with bit 0x20 set; no other character maps onto one.
    if ((header.charCodeAt(index) | 0x20) !== BEARER[index]) return undefined;
  }
  let start = BEARER.length;
  if (header.charCodeAt(start) !== SPACE) return undefined;
  while (header.charCodeAt(start) === SPACE) start++;
  return start < header.length ? header.slice(start) : undefined;
}
