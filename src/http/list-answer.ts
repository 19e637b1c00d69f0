// The answer of a listing: the bare JSON array of the page, `X-Total-Count`, and while more items
// follow, `Link: <...>; rel="next"` (RFC 8288) with the same URL in `X-Next`. The next URL always carries
// the page size in force, the status filter when there is one, and the next page's cursor.
import type { Listing } from '../service/listing.js';
import type { Answer } from './route.js';

/** The paging headers of a page: `Link` rel="next" and `X-Next` when more follow, and `X-Total-Count`. */
export function pagingHeaders(nextUrl: string | undefined, total: number): Record<string, string> {
  if (nextUrl === undefined) return { 'x-total-count': String(total) };
  return { link: `<${nextUrl}>; rel="next"`, 'x-next': nextUrl, 'x-total-count': String(total) };
}

/** The answer of `listing`, whose public address is `path` (e.g. "/v1/pets"). */
export function listAnswer(listing: Listing<{ json: string }, string>, path: string): Answer {
  const { next, limit, status } = listing;
  const nextUrl =
    next === undefined
      ? undefined
      : `${path}?limit=${limit}${status === undefined ? '' : `&status=${status}`}&cursor=${next}`;
  return { status: 200, body: joinJson(listing.items), headers: pagingHeaders(nextUrl, listing.total) };
}

/** A JSON array of ready JSON texts: no serialisation on the read path. */
export function joinJson(items: readonly { json: string }[]): string {
  if (items.length === 0) return '[]';
  let body = '[';
  for (let index = 0; index < items.length; index++) {
    if (index > 0) body += ',';
    body += (items[index] as { json: string }).json;
  }
  return `${body}]`;
}
