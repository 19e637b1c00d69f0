// The load scenarios: what each sends, which statuses it expects, how many pets a local
// store is seeded with, and what it looks up first (ids to get, a cursor deep into the store).
// Request specs are built once in `prepare` and reused, so the sender allocates nothing per request.
// Everything goes through the public API, so a scenario runs against any deployment (--url).
// `over-limit` (over-limit.ts) and `startup` (startup.ts) have runners of their own.
import { request } from 'undici';
import type { ScenarioName } from './args.js';
import type { RequestSpec, ResponseHeaders } from './load.js';

/** Where the load goes. */
export interface Target {
  /** Scheme, host and port. */
  origin: string;
  /** The API's base path, e.g. /v1 ('' when the API sits at the root). */
  basePath: string;
  key: string | undefined;
}

/** A scenario ready to run. */
export interface PreparedScenario {
  /** Sent in turn, from the first: request i of a run is requests[i % requests.length]. */
  requests: readonly RequestSpec[];
  /** Facts found while preparing (page depth, ids used), reported with the result. */
  notes: Record<string, unknown>;
}

export interface LoadScenario {
  name: ScenarioName;
  description: string;
  /** Pets a local store is generated with (deep-page runs on a million). */
  localPets: number;
  expectedStatuses: readonly number[];
  prepare(target: Target): Promise<PreparedScenario>;
  inspect?(status: number, headers: ResponseHeaders): string | undefined;
}

/** The page size of the list scenario (GET /pets?limit=20, also the API's default). */
export const LIST_LIMIT = 20;
/** Largest page (README "How the API behaves"): walking a store to a deep page takes total/100 requests. */
const WALK_LIMIT = 100;
/** deep-page fetches the page that starts after this fraction of the store. */
const DEEP_PAGE_FRACTION = 0.9;
/** get cycles through up to this many ids, read from the first pages of the listing. */
const GET_ID_COUNT = 1000;
/** A small store: several full pages, so list answers carry a full page and a Link. */
const SMALL_STORE_PETS = 1000;
const LARGE_STORE_PETS = 1_000_000;
/** Well-formed (README "Rate limits") but never configured: the service must answer 401. */
const UNKNOWN_KEY = 'bench-unknown-key-000000000000000000';
const CREATE_BODY = JSON.stringify({ name: 'Bench pet', categoryId: 3, status: 'available' });

function authHeaders(target: Target): Record<string, string> {
  return target.key === undefined ? {} : { authorization: `Bearer ${target.key}` };
}

/** GET of `path` (base path included) for setup; resolves with status, headers and parsed body. */
export async function fetchJson(
  target: Target,
  path: string,
): Promise<{ status: number; headers: ResponseHeaders; body: unknown }> {
  const response = await request(`${target.origin}${path}`, { headers: authHeaders(target) });
  const text = await response.body.text();
  if (response.statusCode !== 200)
    throw new Error(`GET ${path} answered ${response.statusCode}: ${text.slice(0, 200)}`);
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(text) as unknown };
}

/** The target of a `Link: <...>; rel="next"` header (README "How the API behaves"), if there is one. */
export function nextLink(headers: ResponseHeaders): string | undefined {
  const link = headers.link;
  const text = Array.isArray(link) ? link.join(', ') : link;
  return text === undefined ? undefined : /<([^>]+)>\s*;\s*rel="?next"?/.exec(text)?.[1];
}

function getSpec(target: Target, path: string): RequestSpec {
  return { method: 'GET', path: `${target.basePath}${path}`, headers: authHeaders(target) };
}

function createSpec(target: Target): RequestSpec {
  return {
    method: 'POST',
    path: `${target.basePath}/pets`,
    headers: { ...authHeaders(target), 'content-type': 'application/json' },
    body: CREATE_BODY,
  };
}

/** Reads up to `count` pet ids from the first pages of the listing. */
async function collectIds(target: Target, count: number): Promise<number[]> {
  const ids: number[] = [];
  let path: string | undefined = `${target.basePath}/pets?limit=${WALK_LIMIT}`;
  while (path !== undefined && ids.length < count) {
    const page = await fetchJson(target, path);
    for (const pet of page.body as { id: number }[]) ids.push(pet.id);
    path = nextLink(page.headers);
  }
  if (ids.length === 0) throw new Error('the store has no pets to get; seed some with --pets N');
  // A fixed shuffle (multiplicative stride, coprime with the length) so the ids are not read in order.
  const stride = ids.length > 7 && ids.length % 7 !== 0 ? 7 : 1;
  return ids.map((_, index) => ids[(index * stride) % ids.length] as number);
}

/** Follows Link from the first page until DEEP_PAGE_FRACTION of the store lies behind; returns that page's path. */
async function findDeepPage(target: Target): Promise<{ path: string; petsBefore: number; total: number }> {
  const first = await fetchJson(target, `${target.basePath}/pets?limit=${WALK_LIMIT}`);
  const total = Number(first.headers['x-total-count'] ?? 0);
  let petsBefore = (first.body as unknown[]).length;
  let path = nextLink(first.headers);
  const stopAt = Math.floor(total * DEEP_PAGE_FRACTION);
  while (path !== undefined && petsBefore < stopAt) {
    const page = await fetchJson(target, path);
    const next = nextLink(page.headers);
    // The last page is as deep as the walk goes: it is the deep page, with petsBefore pets before it.
    if (next === undefined) break;
    petsBefore += (page.body as unknown[]).length;
    path = next;
  }
  if (path === undefined)
    throw new Error(`the store holds ${total} pets, one page at most; deep-page needs more (seed with --pets N)`);
  // README "How the API behaves": the limit may change between pages, so the deep page is fetched at the list's size.
  return { path: path.replace(/([?&]limit=)[0-9]+/, `$1${LIST_LIMIT}`), petsBefore, total };
}

/** Every load scenario, by name. */
export const SCENARIOS: Record<Exclude<ScenarioName, 'over-limit' | 'startup'>, LoadScenario> = {
  list: {
    name: 'list',
    description: `GET /pets?limit=${LIST_LIMIT}: the first page, with authentication, limiter and every header`,
    localPets: SMALL_STORE_PETS,
    expectedStatuses: [200],
    prepare: async (target) => ({ requests: [getSpec(target, `/pets?limit=${LIST_LIMIT}`)], notes: {} }),
  },
  'list-status': {
    name: 'list-status',
    description: `GET /pets?limit=${LIST_LIMIT}&status=available: the first page of a filtered listing`,
    localPets: SMALL_STORE_PETS,
    expectedStatuses: [200],
    prepare: async (target) => ({
      requests: [getSpec(target, `/pets?limit=${LIST_LIMIT}&status=available`)],
      notes: {},
    }),
  },
  'deep-page': {
    name: 'deep-page',
    description: `GET of a page ${DEEP_PAGE_FRACTION * 100} % into the store, reached by following Link`,
    localPets: LARGE_STORE_PETS,
    expectedStatuses: [200],
    async prepare(target) {
      const deep = await findDeepPage(target);
      const path = deep.path.startsWith(target.basePath) ? deep.path.slice(target.basePath.length) : deep.path;
      return {
        requests: [getSpec(target, path)],
        notes: { petsBefore: deep.petsBefore, totalPets: deep.total },
      };
    },
  },
  get: {
    name: 'get',
    description: 'GET /pets/{id} over ids read from the listing (deprecated route: Deprecation and Sunset headers)',
    localPets: SMALL_STORE_PETS,
    expectedStatuses: [200],
    async prepare(target) {
      const specs = (await collectIds(target, GET_ID_COUNT)).map((id) => getSpec(target, `/pets/${id}`));
      return {
        requests: specs,
        notes: { distinctIds: specs.length },
      };
    },
  },
  create: {
    name: 'create',
    description: 'POST /pets: each 201 is on disk (fsynced under durability always) before it is sent',
    localPets: 0,
    expectedStatuses: [201],
    prepare: async (target) => ({ requests: [createSpec(target)], notes: {} }),
  },
  mixed: {
    name: 'mixed',
    description: '90 % reads (list and get, alternately) and 10 % creates',
    localPets: SMALL_STORE_PETS,
    expectedStatuses: [200, 201],
    async prepare(target) {
      const gets = (await collectIds(target, GET_ID_COUNT)).map((id) => getSpec(target, `/pets/${id}`));
      const list = getSpec(target, `/pets?limit=${LIST_LIMIT}`);
      const create = createSpec(target);
      // Every tenth request creates; the others alternate list and get, the gets cycling through the ids.
      const requests = Array.from({ length: 10 * gets.length }, (_, index) =>
        index % 10 === 9 ? create : index % 2 === 0 ? list : (gets[(index >> 1) % gets.length] as RequestSpec),
      );
      return {
        requests,
        notes: { distinctIds: gets.length },
      };
    },
  },
  unauthorized: {
    name: 'unauthorized',
    description:
      "GET /pets with an unknown key: 401, then 429 once the address's failed-authentication bucket (30/min) is empty",
    localPets: 0,
    expectedStatuses: [401, 429],
    prepare: async (target) => ({
      requests: [
        {
          method: 'GET',
          path: `${target.basePath}/pets?limit=${LIST_LIMIT}`,
          headers: { authorization: `Bearer ${UNKNOWN_KEY}` },
        },
      ],
      notes: {
        warning:
          'this empties the failed-authentication bucket of this address: its valid keys get 429 for up to a minute',
      },
    }),
    inspect: (status, headers) => {
      if (status === 401 && headers['www-authenticate'] === undefined) return '401 without WWW-Authenticate';
      if (status === 429 && headers['retry-after'] === undefined) return '429 without Retry-After';
      return undefined;
    },
  },
};
