// The request listener: the steps of a request, in their order, each a module of its own.
//   request checks (400 Host, 414 target)  request-checks.ts
//   CORS preflight (204)                   cors.ts
//   operational endpoints (no key)         operational.ts
//   admission: address → key (401) → limits (429) → capacity (503)   admission.ts
//   route (404/405) → sunset (410)         routing.ts
//   Idempotency-Key claim (400)            idempotency-key.ts
//   input: 100 Continue, body (400/413/415)   request-input.ts
//   the route, the answer (error-answer.ts for failures), the access line (access-line.ts)
// Every API answer carries the limiter's fields; every answer carries X-Request-Id, and over TLS
// Strict-Transport-Security. The operational endpoints need no key and count against no limit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isPending } from '../core/awaitable.js';
import type { Clock } from '../core/clock.js';
import type { Arrival } from '../idempotency/idempotency.js';
import type { ApiKey } from '../keys/api-key.js';
import type { Limiter } from '../limits/index.js';
import type { AccessEntry } from '../logging/logger.js';
import { AccessLine } from './access-line.js';
import { Admission } from './admission.js';
import { sendError, sendJson } from './answers.js';
import type { KeyLookup } from './authorization.js';
import { ClientGoneError } from './body.js';
import { wasTimedOut } from './client-errors.js';
import type { CorsPolicy } from './cors.js';
import type { DocsPage } from './docs-page.js';
import { answerError } from './error-answer.js';
import { isSecure } from './http2.js';
import { type Arrive, IdempotencyKeys } from './idempotency-key.js';
import { OperationalEndpoints, sendNotServed } from './operational.js';
import { requestFault } from './request-checks.js';
import { requestIdOf } from './request-id.js';
import { awaitContinue, readInput } from './request-input.js';
import type { RequestObserver } from './request-observer.js';
import { splitTarget } from './request-target.js';
import { ResponseHeaders } from './response-headers.js';
import type { Route } from './route.js';
import type { Router } from './router.js';
import { Routing } from './routing.js';

/** Everything the listener needs; built once by the composition root. */
export interface DispatchContext {
  basePath: string;
  router: Router<Route>;
  keys: KeyLookup;
  limiter: Limiter;
  clock: Clock;
  maxBodyBytes: number;
  maxUrlBytes: number;
  /** The largest request head; over HTTP/2 checked here (request-checks.ts), over HTTP/1 by Node's parser. */
  maxHeaderBytes: number;
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
  /** The Strict-Transport-Security value every answer over TLS carries (RFC 6797); none when undefined. */
  hsts?: string | undefined;
}

/** The `(req, res)` listener, and how many API requests it has not yet answered (a graceful stop waits for 0). */
export type Dispatcher = ((req: IncomingMessage, res: ServerResponse) => void) & {
  inFlight(): number;
  /** The most API requests in flight at once since the last call (then starts again from those in flight now). */
  busiest(): number;
  /** API requests answered since the dispatcher was made. */
  answered(): number;
  /**
   * The server's `checkContinue` listener: a request with Expect: 100-continue whose `100 Continue` the
   * dispatcher sends itself, once it wants the body. Mounted elsewhere without it, Node sends the 100 at once.
   */
  checkContinue(req: IncomingMessage, res: ServerResponse): void;
};

/** Builds the dispatcher. */
export function createDispatcher(context: DispatchContext): Dispatcher {
  const { basePath, cors, logError, hsts } = context;
  const access = new AccessLine(context.accessLog, context.observe);
  const operational = new OperationalEndpoints({
    basePath,
    openapiJson: context.openapiJson,
    docs: context.docs,
    isAccepting: context.isAccepting,
    checkReady: context.checkReady,
  });
  const routing = new Routing(context.router, basePath, context.clock);
  const admission = new Admission({
    keys: context.keys,
    limiter: context.limiter,
    trustProxy: context.trustProxy,
    maxInFlight: context.maxInFlight,
    isAccepting: context.isAccepting,
    observe: context.observe,
  });
  const idempotencyKeys = new IdempotencyKeys(context.arrive, logError);
  let inFlight = 0;
  let busiest = 0;
  let answered = 0;

  // What the service's own backends answer at once (the in-memory limiter, store and key ring) is used
  // at once: only a promise is awaited, so that a request served from memory takes no turn of the
  // microtask queue before its answer.
  const serveApi = async (
    req: IncomingMessage,
    res: ServerResponse,
    headers: ResponseHeaders,
    path: string,
    query: string,
    requestId: string,
    startedMs: number,
  ): Promise<void> => {
    const method = req.method ?? '';
    let key: ApiKey | undefined;
    let arrival: Arrival | undefined;
    let admitted = false;
    let operation = 'unrouted';
    try {
      const match = routing.find(method, path, headers);
      if (match.kind === 'found') operation = match.route.operationId;
      const admitting = admission.admit(req, headers);
      key = isPending(admitting) ? await admitting : admitting;
      admitted = true;
      admission.assertCapacity(inFlight);
      const { route, params } = routing.resolve(match, method, path);
      const claiming = idempotencyKeys.claim(req, route, params, key.id);
      if (claiming !== undefined) arrival = await claiming;
      const reading = readInput(req, res, route, context.maxBodyBytes);
      const body = reading === undefined ? undefined : await reading;
      const handled = route.handle({ params, query, body, key, arrival });
      const answer = isPending(handled) ? await handled : handled;
      const claim = arrival;
      if (claim !== undefined) {
        arrival = undefined;
        await idempotencyKeys.release(claim, requestId);
      }
      if (answer.headers !== undefined) headers.setAll(answer.headers);
      sendJson(res, idempotencyKeys.statusOf(answer, claim, headers), answer.body, headers);
    } catch (error) {
      // The Idempotency-Key is freed first: a client retrying at once after a 408 finds it free.
      if (arrival !== undefined) await idempotencyKeys.release(arrival, requestId);
      // Node's 408 for a body too slow to arrive counts against no key: the token goes back.
      if (error instanceof ClientGoneError && admitted && key !== undefined && wasTimedOut(req)) {
        try {
          await admission.refund(key);
        } catch (refundError) {
          logError(requestId, refundError);
        }
      }
      answerError(req, res, headers, error, requestId, logError);
    } finally {
      inFlight--;
      answered++;
      access.record(req, res, requestId, path, startedMs, key?.id, operation);
    }
  };

  // The API requests read in one poll phase of the event loop are served together in the check phase
  // right after it (setImmediate), not each as soon as its headers are parsed. Answered at once, each
  // answer's write came between two reads, so a turn of the loop found few requests waiting and its
  // fixed costs (the poll, the timers, the loop's own bookkeeping) fell on few requests; read first and
  // answered together, a turn serves many, and the same code runs many times in a row. Under load this
  // took a third off the CPU time of a request (docs/performance.md); an answer waits for no more than
  // the rest of its turn's reads. Queued requests count as in flight, so a stop waits for them.
  let waiting: Array<() => void> = [];
  const serveWaiting = (): void => {
    const serving = waiting;
    waiting = [];
    for (const serve of serving) serve();
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const startedMs = access.start();
    const requestId = requestIdOf(req.headers['x-request-id']);
    const headers = new ResponseHeaders(requestId);
    // A bug in what is answered here, before the API's own error handling, is a 500 (or a cut
    // connection) for this request alone: an exception let out of a 'request' listener ends the process.
    try {
      answerOutsideApi(req, res, headers, requestId, startedMs);
    } catch (error) {
      answerError(req, res, headers, error, requestId, logError);
    }
  };

  const answerOutsideApi = (
    req: IncomingMessage,
    res: ServerResponse,
    headers: ResponseHeaders,
    requestId: string,
    startedMs: number,
  ): void => {
    if (hsts !== undefined && isSecure(req)) headers.set('strict-transport-security', hsts);
    const fault = requestFault(req, context.maxUrlBytes, context.maxHeaderBytes);
    if (fault !== undefined) {
      sendError(res, fault.error, headers);
      access.record(req, res, requestId, fault.loggedPath, startedMs, undefined, 'malformed');
      return;
    }
    if (cors?.answerPreflight(req, res, headers) === true) {
      access.record(req, res, requestId, '(preflight)', startedMs, undefined, 'preflight');
      return;
    }
    cors?.decorate(req, headers);
    const { path, query } = splitTarget(req.url ?? '/');
    const answered = operational.answer(req, res, headers, path);
    if (answered === undefined) {
      if (routing.serves(path)) {
        if (++inFlight > busiest) busiest = inFlight;
        waiting.push(() => void serveApi(req, res, headers, path, query, requestId, startedMs));
        if (waiting.length === 1) setImmediate(serveWaiting);
        return;
      }
      sendNotServed(res, headers, path, basePath);
      access.record(req, res, requestId, path, startedMs, undefined, 'not_found');
    } else if (isPending(answered)) {
      void answered.then(
        (operation) => access.record(req, res, requestId, path, startedMs, undefined, operation),
        (error: unknown) => answerError(req, res, headers, error, requestId, logError),
      );
    } else {
      access.record(req, res, requestId, path, startedMs, undefined, answered);
    }
  };
  return Object.assign(listener, {
    inFlight: () => inFlight,
    busiest: () => {
      const most = busiest;
      busiest = inFlight;
      return most;
    },
    answered: () => answered,
    checkContinue: (req: IncomingMessage, res: ServerResponse): void => {
      awaitContinue(req);
      listener(req, res);
    },
  });
}
