// Reading the bearer credential of RFC 6750 §2.1 (README "Rate limits"): scheme case-insensitive,
// one space or more, then a token. Malformed, unknown and revoked keys get the same answer.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.js';
import { countHeader } from './headers.js';
import { type ApiKey, isWellFormedKey } from '../auth/api-key.js';

const BEARER = /^bearer +(\S+)$/i;

/** The same message for every key that cannot be used: it must not tell which of them it was. */
const INVALID_KEY_MESSAGE =
  "The API key in the Authorization header is not valid; send 'Authorization: Bearer <key>' with an active key.";
const MISSING_KEY_MESSAGE = "This request needs an API key: send it in the Authorization header as 'Bearer <key>'.";

/** Keys by their SHA-256; the lookup is a `Map.get` on the hash, so its timing says nothing about other keys. */
export interface KeyLookup {
  findByToken(token: string): ApiKey | undefined;
}

/** The key a request authenticates with, or a `401 unauthorized` ApiError. */
export function authenticate(req: IncomingMessage, keys: KeyLookup): ApiKey {
  const header = req.headers.authorization;
  if (header === undefined) {
    throw new ApiError('unauthorized', MISSING_KEY_MESSAGE, undefined, {
      headers: { 'www-authenticate': 'Bearer realm="animal-store"' },
    });
  }
  const match = BEARER.exec(header);
  const token = match?.[1];
  const key =
    token !== undefined && isWellFormedKey(token) && countHeader(req, 'authorization') === 1
      ? keys.findByToken(token)
      : undefined;
  if (key === undefined || key.revokedAt !== null) {
    throw new ApiError('unauthorized', INVALID_KEY_MESSAGE, undefined, {
      headers: { 'www-authenticate': 'Bearer realm="animal-store", error="invalid_token"' },
    });
  }
  return key;
}
