// The request listener: the order of checks, in one place.
//   operational routes (no key) → authentication (401) → rate limit (429) → route (404/405)
//   → sunset (410) → input (400/413/415) → the operation.
// Every API answer carries the limiter's headers; every answer carries X-Request-Id. The operational
// routes (/healthz, /readyz, the OpenAPI document, the /docs page) need no key and count against no limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiKey } from '../auth/api-key.js';
import { isPending } from '../awaitable.js';
import type { Clock } from '../clock.js';
import { ApiError, errorBody } from '../errors.js';
import type { Arrival } from '../idempotency/idempotency.js';
import type { Limiter } from '../limits/index.js';
import type { RequestObserver } from './request-observer.js';
import type { AccessEntry } from '../logger.js';
import { sendError, sendJson } from './answers.js';
import { authenticate, type KeyLookup } from './authorization.js';
import { announcesBody, ClientGoneError, readJsonBody, skipBody } from './body.js';
import { clientAddress } from './client-address.js';
import { wasTimedOut } from './client-errors.js';
import type { CorsPolicy } from './cors.js';
import type { DocsPage } from './docs-page.js';
import { countHeader } from './headers.js';
import { type Arrive, IdempotencyKeys } from './idempotency-key.js';
import { requestIdOf } from './request-id.js';
import { splitTarget } from './request-target.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';
import { failedAuthRefusal, keyRefusal } from './rate-limit-refusals.js';
import { ResponseHeaders } from './response-headers.js';
import type { Route } from './route.js';
import type { Router } from './router.js';

/** Everything the listener needs; built once by the composition root. */
export interface DispatchContext {
  basePath: string;
  router: Router<Route>;
  keys: KeyLookup;
  limiter: Limiter;
  clock: Clock;
  maxBodyBytes: number;
  maxUrlBytes: number;
  trustProxy: boolean;
  /** API requests allowed in flight at once; more are refused at once with 503 rather than queued. */
  maxInFlight: number;
  /** The CORS policy, when origins are configured. */
  cors: CorsPolicy | undefined;
  /**
   * Notes a request with an Idempotency-Key as in flight when its headers arrive, so a repeat meanwhile
   * is refused; `status` is what it is answered with if it is carried out (remembered with the answer).
   */
  arrive: Arrive;
  /** The OpenAPI document, serialised once. */
  openapiJson: string;
  /** The API reference page at /docs; undefined when it is turned off. */
  docs?: DocsPage | undefined;
  /** False once a graceful stop has begun: /healthz and /readyz answer 503, and new API requests too. */
  isAccepting(): boolean;
  /** Resolves when every backing server (the store, the limiter's) can take work; rejects saying why not. */
  checkReady(): Promise<void>;
  /** Where bugs are reported, with the request id. */
  logError(requestId: string, error: unknown): void;
  /** Called once per answered request, for the access log. */
  accessLog?: ((entry: AccessEntry) => void) | undefined;
  /** Told of every answered request, refusal and shed request (metrics); none by default. */
  observe?: RequestObserver | undefined;
}

const HEALTHZ_OK = '{"status":"ok"}';
const READYZ_OK = '{"status":"ready"}';
// While stopping, /healthz answers like any other error: the Error body of the error table.
const STOPPING_MESSAGE = 'The service is stopping and takes no new work; send requests to another instance';
const HEALTHZ_STOPPING = errorBody('unavailable', STOPPING_MESSAGE);

/** The `(req, res)` listener, and how many API requests it has not yet answered (a graceful stop waits for 0). */
export type Dispatcher = ((req: IncomingMessage, res: ServerResponse) => void) & {
  inFlight(): number;
  /**
   * The server's `checkContinue` listener: a request with Expect: 100-continue whose `100 Continue` the
   * dispatcher sends itself, once it wants the body. Mounted elsewhere without it, Node sends the 100 at once.
   */
  checkContinue(req: IncomingMessage, res: ServerResponse): void;
};

/** Builds the dispatcher. */
export function createDispatcher(context: DispatchContext): Dispatcher {
  const { basePath, router, limiter, clock, cors, accessLog, observe } = context;
  const timed = accessLog !== undefined || observe !== undefined;

  const logAccess = (
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    path: string,
    startedMs: number,
    key: ApiKey | undefined,
    operation: string,
  ): void => {
    if (!timed) return;
    const elapsedMs = performance.now() - startedMs;
    observe?.answered(operation, res.statusCode, elapsedMs / 1000);
    if (accessLog === undefined) return;
    const durationMs = Math.round(elapsedMs * 1000) / 1000;
    accessLog({ requestId, method: req.method ?? '', path, status: res.statusCode, durationMs, keyId: key?.id });
  };
  const openapiPath = `${basePath}/openapi.json`;
  const idempotencyKeys = new IdempotencyKeys(context.arrive, context.logError);
  let inFlight = 0;

  const answerOperational = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: ResponseHeaders,
    body: string,
    status = 200,
  ): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      headers.set('allow', 'GET, HEAD');
      sendError(
        res,
        new ApiError('method_not_allowed', `Method ${req.method} is not allowed here; use GET or HEAD`),
        headers,
      );
      return;
    }
    sendJson(res, status, body, headers);
  };

  /** /readyz: 200 while accepting and every backing server answers, else 503 saying which is not. */
  const answerReadiness = async (
    req: IncomingMessage,
    res: ServerResponse,
    headers: ResponseHeaders,
  ): Promise<void> => {
    let body = READYZ_OK;
    let status = 200;
    if (!context.isAccepting()) {
      headers.set('connection', 'close');
      body = HEALTHZ_STOPPING;
      status = 503;
    } else if (req.method === 'GET' || req.method === 'HEAD') {
      try {
        await context.checkReady();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        body = errorBody('unavailable', `The service is not ready: ${reason}`);
        status = 503;
      }
    }
    answerOperational(req, res, headers, body, status);
  };

  const serveApi = async (
    req: IncomingMessage,
    res: ServerResponse,
    headers: ResponseHeaders,
    path: string,
    query: string,
    requestId: string,
    startedMs: number,
  ): Promise<void> => {
    let key: ApiKey | undefined;
    let arrival: Arrival | undefined;
    let admitted = false;
    let operation = 'unrouted';
    inFlight++;
    try {
      // The route is looked up first (a pure lookup) so that every answer of a deprecated route carries its
      // Deprecation, Sunset and Link headers, a 401 or 429 included; a 404 or 405 still comes after them.
      const match = router.find(req.method ?? '', path.slice(basePath.length));
      if (match.kind === 'found') operation = match.route.operationId;
      if (match.kind !== 'not_found' && match.route.deprecation !== undefined)
        headers.setAll(match.route.deprecation.headers);
      const address = clientAddress(req, context.trustProxy);
      // The in-memory limiter answers at once and a shared one with a promise: only a promise is
      // awaited, so that a request the limiter decides in memory takes no turn of the microtask queue.
      const checked = limiter.checkAddress(address);
      const addressRefusal = isPending(checked) ? await checked : checked;
      if (addressRefusal !== undefined) {
        observe?.refused('rate_limited', false);
        setRateLimitHeaders(headers, addressRefusal);
        throw failedAuthRefusal(addressRefusal);
      }
      try {
        key = authenticate(req, context.keys);
      } catch (error) {
        setRateLimitHeaders(headers, await limiter.chargeFailedAuth(address));
        throw error;
      }
      const admission = limiter.admitKey(key.id, key);
      const decision = isPending(admission) ? await admission : admission;
      setRateLimitHeaders(headers, decision);
      if (!decision.allowed) {
        observe?.refused(decision.refusal ?? 'rate_limited', decision.banStarted === true);
        throw keyRefusal(decision);
      }
      admitted = true;
      // Checked after the key and the limiter, so these 503s count and carry the limit headers like any answer.
      if (!context.isAccepting()) {
        throw new ApiError('unavailable', 'The service is stopping; retry on another instance or shortly', undefined, {
          retryAfterSeconds: 1,
          headers: { connection: 'close' },
        });
      }
      if (inFlight > context.maxInFlight) {
        observe?.shed();
        throw new ApiError(
          'unavailable',
          `The service is at capacity (${context.maxInFlight} requests in flight); retry after the Retry-After seconds`,
          undefined,
          { retryAfterSeconds: 1 },
        );
      }

      if (match.kind === 'not_found')
        throw new ApiError('not_found', `No route matches ${req.method} ${path}; see ${openapiPath}`);
      if (match.kind === 'method_not_allowed') {
        throw new ApiError(
          'method_not_allowed',
          `Method ${req.method} is not allowed on ${path}; allowed: ${match.allow}`,
          undefined,
          { headers: { allow: match.allow } },
        );
      }
      const route = match.route;
      if (route.deprecation !== undefined && clock.now() >= route.deprecation.sunsetMs) {
        const removedOn = new Date(route.deprecation.sunsetMs).toISOString().slice(0, 10);
        throw new ApiError(
          'gone',
          `${route.method} ${basePath}${route.path} was removed on ${removedOn}; use ${route.deprecation.replacement} instead`,
        );
      }
      // A request with an Idempotency-Key is in flight from here, before its body arrives, until it is
      // answered (idempotency-key.ts).
      const claiming = idempotencyKeys.claim(req, route, key.id);
      if (claiming !== undefined) arrival = await claiming;
      let body: unknown;
      // Expect: 100-continue is answered here, when the body is wanted (RFC 9110 §10.1.1): after the key,
      // the limits and the Idempotency-Key's claim, so a client refused before gets its final answer
      // without sending the body, and a repeat that arrives after the 100 finds the claim in place.
      if (expectsContinue(req)) res.writeContinue();
      if (route.bodyMediaTypes !== undefined)
        body = await readJsonBody(req, context.maxBodyBytes, route.bodyMediaTypes);
      // A GET's body is ignored, headers and all; any other method's is checked.
      else if (route.method !== 'GET') await skipBody(req, context.maxBodyBytes);
      const handled = route.handle({ params: match.params, query, body, key, arrival });
      const answer = isPending(handled) ? await handled : handled;
      const claim = arrival;
      if (claim !== undefined) {
        arrival = undefined;
        await idempotencyKeys.release(claim, requestId);
      }
      if (answer.headers !== undefined) headers.setAll(answer.headers);
      sendJson(res, idempotencyKeys.statusOf(answer, claim, headers), answer.body, headers);
    } catch (error) {
      // Node's 408 for a body too slow to arrive counts against no key: the token goes back.
      if (error instanceof ClientGoneError && admitted && key !== undefined && wasTimedOut(req.socket)) {
        await Promise.resolve(limiter.refundKey(key.id, key)).catch((refundError: unknown) =>
          context.logError(requestId, refundError),
        );
      }
      if (arrival !== undefined) await idempotencyKeys.release(arrival, requestId);
      answerError(req, res, headers, error, requestId);
    } finally {
      inFlight--;
      logAccess(req, res, requestId, path, startedMs, key, operation);
    }
  };

  const answerError = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: ResponseHeaders,
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
    if (!req.complete && announcesBody(req)) headers.set('connection', 'close');
    sendError(res, apiError, headers);
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const startedMs = timed ? performance.now() : 0;
    const requestId = requestIdOf(req.headers['x-request-id']);
    const headers = new ResponseHeaders(requestId);
    const url = req.url ?? '/';
    // RFC 9112 §3.2: an HTTP/1.1 request with no Host, or more than one, is answered 400.
    if (req.httpVersionMinor === 1 && req.httpVersionMajor === 1 && countHeader(req, 'host') !== 1) {
      headers.set('connection', 'close');
      sendError(
        res,
        new ApiError('bad_request', 'An HTTP/1.1 request must carry exactly one Host header (RFC 9112 section 3.2)'),
        headers,
      );
      logAccess(req, res, requestId, '(bad host)', startedMs, undefined, 'malformed');
      return;
    }
    if (url.length > context.maxUrlBytes) {
      sendError(
        res,
        new ApiError('uri_too_long', `The request target is longer than ${context.maxUrlBytes} bytes`),
        headers,
      );
      logAccess(req, res, requestId, '(too long)', startedMs, undefined, 'malformed');
      return;
    }
    if (cors?.preflight(req, headers)) {
      res.writeHead(204, headers.list);
      res.end();
      logAccess(req, res, requestId, '(preflight)', startedMs, undefined, 'preflight');
      return;
    }
    cors?.decorate(req, headers);
    const { path, query } = splitTarget(url);
    let operation = 'not_found';
    if (path === '/healthz') {
      operation = 'healthz';
      const accepting = context.isAccepting();
      // While stopping, the connection is closed after the 503 so that the prober connects afresh (elsewhere).
      if (!accepting) headers.set('connection', 'close');
      answerOperational(req, res, headers, accepting ? HEALTHZ_OK : HEALTHZ_STOPPING, accepting ? 200 : 503);
    } else if (path === '/readyz') {
      void answerReadiness(req, res, headers).then(() =>
        logAccess(req, res, requestId, path, startedMs, undefined, 'readyz'),
      );
      return;
    } else if (path === openapiPath) {
      operation = 'openapi';
      answerOperational(req, res, headers, context.openapiJson);
    } else if (context.docs?.has(path) === true) {
      operation = 'docs';
      context.docs.answer(req, res, headers, path);
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
    logAccess(req, res, requestId, path, startedMs, undefined, operation);
  };
  return Object.assign(listener, {
    inFlight: () => inFlight,
    checkContinue: (req: IncomingMessage, res: ServerResponse): void => {
      awaitingContinue.add(req);
      listener(req, res);
    },
  });
}

/** Requests whose `100 Continue` Node left to the dispatcher (they came through `checkContinue`). */
const awaitingContinue = new WeakSet<IncomingMessage>();

/** Whether this request still waits for its `100 Continue`; true once only. */
function expectsContinue(req: IncomingMessage): boolean {
  return awaitingContinue.delete(req);
}
