// Which API route a request is for. The route is looked up first, a pure lookup, so that every answer
// of a deprecated route carries its Deprecation, Sunset and Link fields, a 401 or 429 included; a 404,
// 405 or 410 it comes to is answered only once the request is admitted (README "How the API behaves").
import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { ResponseHeaders } from './response-headers.js';
import type { Route } from './route.js';
import type { Router, RouteMatch } from './router.js';

/** A route found, with its raw path parameters. */
export type FoundRoute = Extract<RouteMatch<Route>, { kind: 'found' }>;

/** The API's routes under its base path. */
export class Routing {
  readonly #router: Router<Route>;
  readonly #basePath: string;
  readonly #clock: Clock;

  constructor(router: Router<Route>, basePath: string, clock: Clock) {
    this.#router = router;
    this.#basePath = basePath;
    this.#clock = clock;
  }

  /** Whether `path` is under the base path, where the API (and nothing else) is served. */
  serves(path: string): boolean {
    const basePath = this.#basePath;
    return path === basePath || (path.startsWith(basePath) && path.charCodeAt(basePath.length) === 47); /* "/" */
  }

  /** What `method path` (a path the API `serves`) matches; a deprecated route's fields go on `headers` now. */
  find(method: string, path: string, headers: ResponseHeaders): RouteMatch<Route> {
    const match = this.#router.find(method, path.slice(this.#basePath.length));
    if (match.kind !== 'not_found' && match.route.deprecation !== undefined)
      headers.setAll(match.route.deprecation.headers);
    return match;
  }

  /** The route `match` found, or the request's 404 (no route), 405 (another method) or 410 (past its sunset). */
  resolve(match: RouteMatch<Route>, method: string, path: string): FoundRoute {
    if (match.kind === 'not_found')
      throw new ApiError('not_found', `No route matches ${method} ${path}; see ${this.#basePath}/openapi.json`);
    if (match.kind === 'method_not_allowed') {
      throw new ApiError(
        'method_not_allowed',
        `Method ${method} is not allowed on ${path}; allowed: ${match.allow}`,
        undefined,
        { headers: { allow: match.allow } },
      );
    }
    const { deprecation } = match.route;
    if (deprecation !== undefined && this.#clock.now() >= deprecation.sunsetMs) {
      const removedOn = new Date(deprecation.sunsetMs).toISOString().slice(0, 10);
      throw new ApiError(
        'gone',
        `${match.route.method} ${this.#basePath}${match.route.path} was removed on ${removedOn}; use ${deprecation.replacement} instead`,
      );
    }
    return match;
  }
}
