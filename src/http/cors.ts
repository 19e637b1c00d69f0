// CORS (Fetch standard, "CORS protocol"): off unless origins are configured. For an allowed Origin,
// answers carry Access-Control-Allow-Origin and expose the headers a browser client needs (rate
// limits, paging, request id); a preflight (OPTIONS with Access-Control-Request-Method) is answered
// 204 before authentication, since browsers send preflights without credentials.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isOrigin } from '../config/origin.js';
import type { ResponseHeaders } from './response-headers.js';

const ALLOWED_METHODS = 'GET, HEAD, POST, PATCH, DELETE';
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, X-Request-Id';
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Link',
  'X-Next',
  'X-Total-Count',
  'Location',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'WWW-Authenticate',
].join(', ');
/** How long a browser may cache a preflight answer, in seconds (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** The CORS policy of an allow-list of origins (exact `scheme://host[:port]` matches). */
export class CorsPolicy {
  readonly #origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    for (const origin of origins) {
      if (!isOrigin(origin))
        throw new TypeError(`CORS origin must look like https://app.example.com (no path), not "${origin}"`);
    }
    this.#origins = new Set(origins);
  }

  /** Adds the CORS headers of an answer to `req` (none when its Origin is not allowed). */
  decorate(req: IncomingMessage, headers: ResponseHeaders): boolean {
    const origin = req.headers.origin;
    headers.set('vary', 'Origin');
    if (origin === undefined || !this.#origins.has(origin)) return false;
    headers.set('access-control-allow-origin', origin);
    headers.set('access-control-expose-headers', EXPOSED_HEADERS);
    return true;
  }

  /** Is `req` a CORS preflight from an allowed origin? Then `headers` are filled for the 204 answer. */
  preflight(req: IncomingMessage, headers: ResponseHeaders): boolean {
    if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false;
    if (!this.decorate(req, headers)) return false;
    headers.set('access-control-allow-methods', ALLOWED_METHODS);
    headers.set('access-control-allow-headers', ALLOWED_HEADERS);
    headers.set('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
    return true;
  }

  /** Answers `req` with 204 when it is a preflight from an allowed origin; true when it did. */
  answerPreflight(req: IncomingMessage, res: ServerResponse, headers: ResponseHeaders): boolean {
    if (!this.preflight(req, headers)) return false;
    res.writeHead(204, headers.list);
    res.end();
    return true;
  }
}
