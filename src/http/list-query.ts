// The query of a listing (CONTRACT.md section 4): `limit`, `status` and `cursor`, each at most once,
// checked against the listing's TypeBox query schema. Unknown parameters are ignored.
import type { Static, TSchema } from 'typebox';
import { MAX_PAGE_SIZE } from '../paging.js';
import { createValidator } from '../validation.js';
import { parsePositiveInteger, readQuery } from './request-target.js';

const QUERY_NAMES = ['limit', 'status', 'cursor'] as const;

/** A parser of a listing's raw query string into its schema's type; throws `invalid_query`. */
export function createListQueryParser<S extends TSchema>(
  schema: S,
  statusRule: string,
): (rawQuery: string) => Static<S> {
  const check = createValidator(
    schema,
    'the query',
    {
      limit: `an integer from 1 to ${MAX_PAGE_SIZE} in plain decimal digits`,
      status: statusRule,
      cursor: 'the opaque value from the Link header of the previous page',
    },
    'query',
  );
  return (rawQuery: string): Static<S> => {
    const raw = readQuery(rawQuery, QUERY_NAMES);
    return check({
      // Digits become a number; anything else stays text so the schema refuses it by name.
      ...(raw.limit !== undefined && { limit: parsePositiveInteger(raw.limit, Number.MAX_SAFE_INTEGER) ?? raw.limit }),
      ...(raw.status !== undefined && { status: raw.status }),
      ...(raw.cursor !== undefined && { cursor: raw.cursor }),
    });
  };
}
