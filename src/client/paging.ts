// Paging of the API's listings as the client follows it: a listing's path with its query, a page's
// `next` cursor and total from its headers, and an async iterator that follows `Link` rel="next"
// from page to page, only within the origin the client's key was given for.
import { AnimalStoreError, CLIENT_ERROR_CODES } from './errors.js';
import { linkTarget } from './link.js';
import { type ApiAnswer, type ApiRequest, headerText } from './transport.js';

/** Query parameters of a listing, sent in the order given; undefined ones are left out. */
export type ListQuery = Record<string, string | number | undefined>;

/** The path of `resource` under `basePath` with `query` (e.g. `/v1/pets?limit=100&status=sold`). */
export function listPath(basePath: string, resource: string, query: ListQuery): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return `${basePath}${resource}${text.length > 0 ? `?${text}` : ''}`;
}

/** A page's cursor of the next page (undefined on the last) and how many items match in all. */
export function pageInfo(answer: ApiAnswer): { next: string | undefined; total: number } {
  const target = linkTarget(answer.headers.link, 'next');
  const next =
    target === undefined ? undefined : (new URL(target, 'http://link.invalid').searchParams.get('cursor') ?? undefined);
  return { next, total: Number(headerText(answer.headers['x-total-count']) ?? Number.NaN) };
}

/** Every item of the listing at `firstPath`, page after page; a loop that breaks fetches no further page. */
export async function* iteratePages<T>(
  send: (request: ApiRequest) => Promise<ApiAnswer>,
  origin: string,
  firstPath: string,
): AsyncIterableIterator<T> {
  let path: string | undefined = firstPath;
  while (path !== undefined) {
    const answer = await send({ method: 'GET', path });
    yield* answer.body as T[];
    path = nextPath(answer, origin);
  }
}

/** The path of `Link` rel="next", refused if it leads to another origin: the bearer key goes only to the one it was given for. */
function nextPath(answer: ApiAnswer, origin: string): string | undefined {
  const target = linkTarget(answer.headers.link, 'next');
  if (target === undefined) return undefined;
  const url = new URL(target, origin);
  if (url.origin !== origin) {
    throw new AnimalStoreError({
      status: answer.status,
      code: CLIENT_ERROR_CODES.unexpected_response,
      message: `The next page's link points to another origin (${url.origin}); not following it with this client's key`,
      requestId: headerText(answer.headers['x-request-id']),
    });
  }
  return `${url.pathname}${url.search}`;
}
