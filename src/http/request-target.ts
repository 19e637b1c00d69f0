// Reading the request target: its raw path and query, before any percent-decoding (README "How the API behaves"),
// and turning their text into the plain values the service checks.
import { ApiError } from '../core/errors.js';

/** The raw path (never decoded) and the raw query (without "?"; "" when absent) of a request target. */
export interface Target {
  path: string;
  query: string;
}

/** Splits `req.url`; accepts the absolute form too (RFC 9112 §3.2.2), whose authority is ignored. */
export function splitTarget(url: string): Target {
  let start = 0;
  if (url.charCodeAt(0) !== 47 /* "/" */) {
    const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(url);
    if (scheme === null) return { path: url, query: '' };
    start = scheme[0].length;
  }
  const hash = url.indexOf('#', start);
  const end = hash === -1 ? url.length : hash;
  const question = url.indexOf('?', start);
  if (question === -1 || question > end) return { path: url.slice(start, end) || '/', query: '' };
  return { path: url.slice(start, question) || '/', query: url.slice(question + 1, end) };
}

/**
 * The values of the named query parameters; names are case-sensitive and others are ignored.
 * A named parameter sent twice is `400 invalid_query` (README "How the API behaves").
 */
export function readQuery<N extends string>(query: string, names: readonly N[]): Partial<Record<N, string>> {
  const values: Partial<Record<N, string>> = {};
  if (query.length === 0) return values;
  for (const [name, value] of parameters(query)) {
    if (!(names as readonly string[]).includes(name)) continue;
    if (values[name as N] !== undefined) {
      throw new ApiError('invalid_query', `Query parameter "${name}" must not be repeated`, [
        { path: name, message: `"${name}" must appear at most once` },
      ]);
    }
    values[name as N] = value;
  }
  return values;
}

/**
 * The name-value pairs of a query, decoded as a form (WHATWG URL, application/x-www-form-urlencoded).
 * A query without "%" or "+" has nothing to decode: the form parser then only splits on "&" and each
 * sequence's first "=", skipping empty sequences, which is done here at a third of URLSearchParams' cost
 * (a page with a cursor sends such a query on every request). URLSearchParams also drops one leading
 * "?", so such a query goes to it too.
 */
export function parameters(query: string): Iterable<[string, string]> {
  if (/^\?|[%+]/.test(query)) return new URLSearchParams(query);
  const pairs: [string, string][] = [];
  let start = 0;
  while (start < query.length) {
    let end = query.indexOf('&', start);
    if (end === -1) end = query.length;
    if (end > start) {
      const equals = query.indexOf('=', start);
      pairs.push(
        equals === -1 || equals > end
          ? [query.slice(start, end), '']
          : [query.slice(start, equals), query.slice(equals + 1, end)],
      );
    }
    start = end + 1;
  }
  return pairs;
}

/**
 * Parses decimal digits without sign or leading zero (`^[1-9][0-9]*$`), 1..max; anything else is
 * undefined. Read digit by digit: ids are parsed on every request. Up to 2^53 the sum is exact; past
 * it, it stays above every `max` a caller can give (at most Number.MAX_SAFE_INTEGER).
 */
export function parsePositiveInteger(text: string, max: number): number | undefined {
  if (text.length === 0 || text.length > 16) return undefined;
  let value = 0;
  for (let index = 0; index < text.length; index++) {
    const digit = text.charCodeAt(index) - 48; /* "0" */
    if (!(digit >= 0 && digit <= 9) || (digit === 0 && index === 0)) return undefined;
    value = value * 10 + digit;
  }
  return value <= max ? value : undefined;
}

/**
 * A path segment that holds an id (`petId`, `orderId`), as a value: plain decimal digits
 * (`^[1-9][0-9]*$`, at most 2^53 − 1) become the number; anything else stays the raw text, for the
 * service to refuse with `invalid_parameter` naming the id (HTTP reads text, the service checks values).
 */
export function readIdSegment(text: string): number | string {
  return parsePositiveInteger(text, Number.MAX_SAFE_INTEGER) ?? text;
}
