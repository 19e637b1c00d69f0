// API keys (README "Rate limits"): their record, their hash, and the format of generated keys.
// Generated keys are `ask_` + 30 base62 characters (178 random bits) + a 6-character base62 CRC-32,
// the scheme GitHub uses for its tokens, so a secret scanner or the CLI can tell a mistyped key.
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

import type { PlanName } from '../limits/index.js';

export type { PlanName };
/** The plans of README "Keys and plans". */
export const PLAN_NAMES: readonly PlanName[] = ['free', 'pro', 'business', 'enterprise'];

/** A configured key: never the key itself, only its hash. */
export interface ApiKey {
  /** A short public identifier, for logs and `keys list`. */
  id: string;
  name: string;
  plan: PlanName;
  perMinute: number;
  perDay: number;
  /** `sha256:` and the hex SHA-256 of the key. */
  hash: string;
  createdAt: string;
  revokedAt: string | null;
}

/** The prefix of every generated key. */
export const KEY_PREFIX = 'ask_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_CHARS = 30;
const CHECKSUM_CHARS = 6;

// RFC 6750 §2.1 b64token, with the contract's length bounds: 16 to 256 characters in all.
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const MIN_KEY_LENGTH = 16;
export const MAX_KEY_LENGTH = 256;

/** Is `key` a well-formed bearer token of acceptable length? */
export function isWellFormedKey(key: string): boolean {
  return key.length >= MIN_KEY_LENGTH && key.length <= MAX_KEY_LENGTH && TOKEN.test(key);
}

/** The stored form of a key: `sha256:<hex>`. Keys are long and random, so a fast hash is the right one. */
export function hashKey(key: string): string {
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** A new random key with its checksum. */
export function generateKey(): string {
  let body = '';
  while (body.length < RANDOM_CHARS) {
    for (const byte of randomBytes(RANDOM_CHARS * 2)) {
      // Rejection sampling: 248 = 4 × 62, so every base62 digit stays equally likely.
      if (byte < 248 && body.length < RANDOM_CHARS) body += BASE62[byte % 62];
    }
  }
  return `${KEY_PREFIX}${body}${checksumOf(KEY_PREFIX + body)}`;
}

/** The length of every generated key: prefix, random part and checksum. */
export const GENERATED_KEY_LENGTH = KEY_PREFIX.length + RANDOM_CHARS + CHECKSUM_CHARS;

/** For an `ask_` key: does its checksum match? Keys of other shapes are not generated ones: undefined. */
export function hasValidChecksum(key: string): boolean | undefined {
  if (!key.startsWith(KEY_PREFIX) || key.length !== GENERATED_KEY_LENGTH) return undefined;
  const split = key.length - CHECKSUM_CHARS;
  return checksumOf(key.slice(0, split)) === key.slice(split);
}

function checksumOf(text: string): string {
  let value = crc32(text);
  let digits = '';
  for (let index = 0; index < CHECKSUM_CHARS; index++) {
    digits = BASE62[value % 62] + digits;
    value = Math.floor(value / 62);
  }
  return digits;
}

/** A new public key id: `key_` and 8 hex digits. */
export function newKeyId(): string {
  return `key_${randomBytes(4).toString('hex')}`;
}
