// The query string of a listing: `limit`, `status` and `cursor`, each at most once (a repeat is
// `invalid_query`), turned into values and checked by the listing's validator. Unknown parameters are
// ignored; names are case-sensitive.
import type { Validate } from '../validation.js';
import { parsePositiveInteger, readQuery } from './request-target.js';

const QUERY_NAMES = ['limit', 'status', 'cursor'] as const;

/** The listing query of the raw query string `rawQuery`, checked by `validate`. */
export function parseListQuery<Q>(rawQuery: string, validate: Validate<Q>): Q {
  const raw = readQuery(rawQuery, QUERY_NAMES);
  return validate({
    // Digits become a number; anything else stays text so the schema refuses it by name.
    ...(raw.limit !== undefined && { limit: parsePositiveInteger(raw.limit, Number.MAX_SAFE_INTEGER) ?? raw.limit }),
    ...(raw.status !== undefined && { status: raw.status }),
    ...(raw.cursor !== undefined && { cursor: raw.cursor }),
  });
}
