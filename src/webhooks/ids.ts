// Identifiers of subscriptions and attempts: a prefix that says what it names, then 16 random bytes in
// base62-free base64url without its two symbols, so an id is a plain word that is unique across
// instances and processes without any coordination.
import { randomBytes } from 'node:crypto';

/** `prefix` and 22 random letters and digits (about 128 bits). */
export function newId(prefix: 'wh_' | 'att_'): string {
  // base64url of 18 bytes is 24 characters; "-" and "_" are dropped, leaving at least 22 most of the time.
  let text = '';
  while (text.length < 22) text += randomBytes(18).toString('base64url').replace(/[-_]/g, '');
  return `${prefix}${text.slice(0, 22)}`;
}
