// The request listener: the order of checks of CONTRACT.md section 1, in one place.
//   operational routes (no key) → authentication (401) → rate limit (429) → route (404/405)
//   → sunset (410) → input (400/413/415) → the operation.
// Every API answer carries the limiter's headers; every answer carries X-Request-Id.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKey } from '../auth/api-key.js';
import { authenticate, type KeyLookup } from '../auth/authorization.js';
import type { Clock } from '../clock.js';
import { ApiError, errorBody } from '../errors.js';
import type { IdempotencyStore } from '../idempotency/idempotency-store.js';
import type { IdempotencyRequest } from '../idempotency/run-idempotent.js';
import type { Decision, RateLimiter } from '../limits/index.js';
import { type HeaderBag, sendError, sendJson } from './answers.js';
import { announcesBody, ClientGoneError, readJsonBody, skipBody } from './body.js';
import { clientAddress } from './client-address.js';
import { wasTimedOut } from './client-errors.js';
import type { CorsPolicy } from './cors.js';
import { countHeader } from './headers.js';
import type { Operation } from './operation.js';
import { requestIdOf } from './request-id.js';
import { splitTarget } from './request-target.js';
import type { Router } from './router.js';

/** Everything the listener needs; built once by server.ts. */
export interface DispatchContext {
  basePath: string;
  router: Router<Operation>;
  keys: KeyLookup;
  limiter: RateLimiter;
  clock: Clock;
  maxBodyBytes: number;
  maxUrlBytes: number;
  trustProxy: boolean;
  /** API requests allowed in flight at once; more are refused at once with 503 (issue 8: no growing queue). */
  maxInFlight: number;
  /** The CORS policy, when origins are configured. */
  cors: CorsPolicy | undefined;
  /** Where requests with an Idempotency-Key note their arrival, so a repeat during the first is refused. */
  idempotency: Pick<IdempotencyStore, 'arrive'>;
  /** The OpenAPI document, serialised once. */
  openapiJson: string;
  /** False once a graceful stop has begun: /healthz answers 503 and new API requests too. */
  isAccepting(): boolean;
  /** Where bugs are reported, with the request id. */
  logError(requestId: string, error: unknown): void;
  /** Called once per answered request, for the access log. */
  accessLog?: ((entry: AccessEntry) => void) | undefined;
}

/** One line of the access log: never the key, never the query string (a key might be sent there). */
export interface AccessEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyId: string | undefined;
}

const HEALTHZ_OK = '{"status":"ok"}';
// While stopping, /healthz answers like any other error: the Error body of the contract's table.
const HEALTHZ_STOPPING = errorBody(
  'unavailable',
  'The service is stopping and takes no new work; send requests to another instance',
);

/** The `(req, res)` listener, and how many API requests it has not yet answered (a graceful stop waits for 0). */
export type Dispatcher = ((req: IncomingMessage, res: ServerResponse) => void) & { inFlight(): number };

/** Builds the dispatcher. */
export function createDispatcher(context: DispatchContext): Dispatcher {
  const { basePath, router, limiter, clock, cors, accessLog } = context;

  const logAccess = (
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    path: string,
    startedMs: number,
    key: ApiKey | undefined,
  ): void => {
    if (accessLog === undefined) return;
    const durationMs = Math.round((performance.now() - startedMs) * 1000) / 1000;
    accessLog({ requestId, method: req.method ?? '', path, status: res.statusCode, durationMs, keyId: key?.id });
  };
  const openapiPath = `${basePath}/openapi.json`;
  let inFlight = 0;

  const answerOperational = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: HeaderBag,
    body: string,
    status = 200,
  ): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      headers.allow = 'GET, HEAD';
      sendError(
        res,
        new ApiError('method_not_allowed', `Method ${req.method} is not allowed here; use GET or HEAD`),
        headers,
      );
      return;
    }
    sendJson(res, status, body, headers);
  };

  const serveApi = async (
    req: IncomingMessage,
    res: ServerResponse,
    headers: HeaderBag,
    path: string,
    query: string,
    requestId: string,
    startedMs: number,
  ): Promise<void> => {
    let key: ApiKey | undefined;
    let arrival: { leave(): void } | undefined;
    let admitted = false;
    inFlight++;
    try {
      // The route is looked up first (a pure lookup) so that every answer of a deprecated route carries its
      // Deprecation, Sunset and Link headers, a 401 or 429 included; a 404 or 405 still comes after them.
      const match = router.find(req.method ?? '', path.slice(basePath.length));
      if (match.kind !== 'not_found' && match.route.deprecation !== undefined)
        Object.assign(headers, match.route.deprecation.headers);
      const address = clientAddress(req, context.trustProxy);
      const addressRefusal = limiter.checkAddress(address);
      if (addressRefusal !== undefined) throw refusal(addressRefusal, headers);
      try {
        key = authenticate(req, context.keys);
      } catch (error) {
        addHeaders(headers, limiter.chargeFailedAuth(address));
        throw error;
      }
      const decision = limiter.admitKey(key.id, key);
      addHeaders(headers, decision);
      if (!decision.allowed) throw refusal(decision, headers);
      admitted = true;
      // Checked after the (synchronous, O(1)) key and limiter, so these 503s count and carry the limit headers like any answer.
      if (!context.isAccepting())
        throw new ApiError('unavailable', 'The service is stopping; retry on another instance or shortly', undefined, {
          'retry-after': '1',
          connection: 'close',
        });
      if (inFlight > context.maxInFlight) {
        throw new ApiError(
          'unavailable',
          `The service is at capacity (${context.maxInFlight} requests in flight); retry after the Retry-After seconds`,
          undefined,
          { 'retry-after': '1' },
        );
      }

      if (match.kind === 'not_found')
        throw new ApiError('not_found', `No route matches ${req.method} ${path}; see ${openapiPath}`);
      if (match.kind === 'method_not_allowed') {
        throw new ApiError(
          'method_not_allowed',
          `Method ${req.method} is not allowed on ${path}; allowed: ${match.allow}`,
          undefined,
          { allow: match.allow },
        );
      }
      const operation = match.route;
      if (operation.deprecation !== undefined && clock.now() >= operation.deprecation.sunsetMs) {
        throw new ApiError(
          'gone',
          `${operation.method} ${basePath}${operation.path} was removed on ${new Date(operation.deprecation.sunsetMs).toISOString().slice(0, 10)}; use ${operation.deprecation.replacement} instead`,
        );
      }
      // A request with an Idempotency-Key is in flight from here, before its body arrives, until it is answered.
      const idempotencyKey = operation.idempotent === true ? idempotencyKeyOf(req) : undefined;
      let idempotency: IdempotencyRequest | undefined;
      if (idempotencyKey !== undefined) {
        const scope = `${key.id} ${operation.method} ${operation.path}`;
        const arrived = context.idempotency.arrive(scope, idempotencyKey);
        arrival = arrived;
        idempotency = { scope, key: idempotencyKey, ticket: arrived.ticket };
      }
      let body: unknown;
      if (operation.bodyMediaTypes !== undefined)
        body = await readJsonBody(req, context.maxBodyBytes, operation.bodyMediaTypes);
      // A GET's body is ignored, headers and all (CONTRACT.md section 2); any other method's is checked.
      else if (operation.method !== 'GET') await skipBody(req, context.maxBodyBytes);
      const answer = await operation.handle({
        params: match.params,
        query,
        body,
        key,
        headers: req.headers,
        idempotency,
      });
      if (answer.headers !== undefined) Object.assign(headers, answer.headers);
      sendJson(res, answer.status, answer.body, headers);
    } catch (error) {
      // Node's 408 for a body too slow to arrive counts against no key: the token goes back.
      if (error instanceof ClientGoneError && admitted && key !== undefined && wasTimedOut(req.socket))
        limiter.refundKey(key.id, key);
      answerError(req, res, headers, error, requestId);
    } finally {
      inFlight--;
      arrival?.leave();
      logAccess(req, res, requestId, path, startedMs, key);
    }
  };

  const answerError = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: HeaderBag,
    error: unknown,
    requestId: string,
  ): void => {
    if (error instanceof ClientGoneError) {
      // For the access log: Node's 408, or nginx's 499 for a client that closed before its answer.
      res.statusCode = wasTimedOut(req.socket) ? 408 : 499;
      res.destroy();
      return;
    }
    const apiError = error instanceof ApiError ? error : new ApiError('internal_error');
    if (!(error instanceof ApiError)) context.logError(requestId, error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // A body left unread (refused before or while reading it) is not drained: the connection closes.
    // Only a body: a request without one is kept alive, even when it is answered before Node has
    // marked it complete (a synchronous 401, 404 or 429 is sent before that happens).
    if (!req.complete && announcesBody(req)) headers.connection = 'close';
    sendError(res, apiError, headers);
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const startedMs = accessLog === undefined ? 0 : performance.now();
    const requestId = requestIdOf(req.headers['x-request-id']);
    const headers: HeaderBag = { 'x-request-id': requestId };
    const url = req.url ?? '/';
    // RFC 9112 §3.2: an HTTP/1.1 request with no Host, or more than one, is answered 400.
    if (req.httpVersionMinor === 1 && req.httpVersionMajor === 1 && countHeader(req, 'host') !== 1) {
      headers.connection = 'close';
      sendError(
        res,
        new ApiError('bad_request', 'An HTTP/1.1 request must carry exactly one Host header (RFC 9112 section 3.2)'),
        headers,
      );
      logAccess(req, res, requestId, '(bad host)', startedMs, undefined);
      return;
    }
    if (url.length > context.maxUrlBytes) {
      sendError(
        res,
        new ApiError('uri_too_long', `The request target is longer than ${context.maxUrlBytes} bytes`),
        headers,
      );
      logAccess(req, res, requestId, '(too long)', startedMs, undefined);
      return;
    }
    if (cors?.preflight(req, headers)) {
      res.writeHead(204, headers);
      res.end();
      logAccess(req, res, requestId, '(preflight)', startedMs, undefined);
      return;
    }
    cors?.decorate(req, headers);
    const { path, query } = splitTarget(url);
    if (path === '/healthz') {
      const accepting = context.isAccepting();
      // While stopping, the connection is closed after the 503 so that the prober connects afresh (elsewhere).
      if (!accepting) headers.connection = 'close';
      answerOperational(req, res, headers, accepting ? HEALTHZ_OK : HEALTHZ_STOPPING, accepting ? 200 : 503);
    } else if (path === openapiPath) {
      answerOperational(req, res, headers, context.openapiJson);
    } else if (path === basePath || (path.startsWith(basePath) && path.charCodeAt(basePath.length) === 47) /* "/" */) {
      void serveApi(req, res, headers, path, query, requestId, startedMs);
      return;
    } else {
      sendError(
        res,
        new ApiError('not_found', `Nothing is served at ${path}; the API lives under ${basePath}`),
        headers,
      );
    }
    logAccess(req, res, requestId, path, startedMs, undefined);
  };
  return Object.assign(listener, { inFlight: () => inFlight });
}

// CONTRACT.md section 9: 1 to 255 visible ASCII characters.
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, checked; undefined when none was sent. */
function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  const count = countHeader(req, 'idempotency-key');
  // A repeat matters only on a request with a body (CONTRACT.md section 2); one without is invalid_json.
  if (count === 0 || (count > 1 && !announcesBody(req))) return undefined;
  const value = req.headers['idempotency-key'];
  if (count > 1 || typeof value !== 'string' || !IDEMPOTENCY_KEY.test(value)) {
    throw new ApiError(
      'invalid_header',
      'Header "Idempotency-Key" must be sent once, as 1 to 255 visible ASCII characters',
      [{ path: 'Idempotency-Key', message: '"Idempotency-Key" must be 1 to 255 visible ASCII characters, sent once' }],
    );
  }
  return value;
}

/** Lower-case forms of the limiter's few header names, made once rather than per answer. */
const lowerCaseNames = new Map<string, string>();

function addHeaders(headers: HeaderBag, decision: Decision): void {
  for (const [name, value] of decision.headers) {
    let lowerCase = lowerCaseNames.get(name);
    if (lowerCase === undefined) {
      lowerCase = name.toLowerCase();
      lowerCaseNames.set(name, lowerCase);
    }
    headers[lowerCase] = value;
  }
}

function refusal(decision: Decision, headers: HeaderBag): ApiError {
  addHeaders(headers, decision);
  const code = decision.code ?? 'rate_limited';
  const seconds = decision.retryAfterSeconds ?? 1;
  const message =
    code === 'temporarily_banned'
      ? `This API key is temporarily banned after repeated requests over its limit; retry in ${seconds} s`
      : `Too many requests; retry in ${seconds} s (see Retry-After) and back off exponentially`;
  return new ApiError(code, message);
}
