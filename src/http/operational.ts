// The operational endpoints (README "Endpoints"): /healthz (liveness), /readyz (readiness), the OpenAPI
// document and the /docs page. They need no key and count against no limit, answer reads only, and
// are looked for before the API, so that a monitor reaches them whatever the base path is. Any other
// path outside the API is a 404 naming where the API lives.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Awaitable } from '../core/awaitable.js';
import { ApiError, errorBody } from '../core/errors.js';
import { sendError, sendJson } from './answers.js';
import type { DocsPage } from './docs-page.js';
import { isRead, refuseUnlessRead } from './read-only.js';
import type { ResponseHeaders } from './response-headers.js';

const HEALTHZ_OK = '{"status":"ok"}';
const READYZ_OK = '{"status":"ready"}';
// While stopping, /healthz answers like any other error: the Error body of the error table.
const STOPPING_MESSAGE = 'The service is stopping and takes no new work; send requests to another instance';
const HEALTHZ_STOPPING = errorBody('unavailable', STOPPING_MESSAGE);

/** What the operational endpoints answer from. */
export interface OperationalOptions {
  basePath: string;
  /** The OpenAPI document, serialised once. */
  openapiJson: string;
  /** The API reference page at /docs; undefined when it is turned off. */
  docs: DocsPage | undefined;
  /** False once a graceful stop has begun: /healthz and /readyz answer 503. */
  isAccepting(): boolean;
  /** Resolves when every backing server can take work; rejects saying why not. */
  checkReady(): Promise<void>;
}

/** /healthz, /readyz, the OpenAPI document and the /docs page. */
export class OperationalEndpoints {
  readonly #options: OperationalOptions;
  readonly #openapiPath: string;

  constructor(options: OperationalOptions) {
    this.#options = options;
    this.#openapiPath = `${options.basePath}/openapi.json`;
  }

  /**
   * Answers `path` when it is an operational endpoint and gives its operation label (for the access
   * line and metrics), at once or, for /readyz, once answered; undefined for any other path.
   */
  answer(
    req: IncomingMessage,
    res: ServerResponse,
    headers: ResponseHeaders,
    path: string,
  ): Awaitable<string> | undefined {
    if (path === '/healthz') {
      const accepting = this.#options.isAccepting();
      // While stopping, the connection is closed after the 503 so that the prober connects afresh (elsewhere).
      if (!accepting) headers.set('connection', 'close');
      answerRead(req, res, headers, accepting ? HEALTHZ_OK : HEALTHZ_STOPPING, accepting ? 200 : 503);
      return 'healthz';
    }
    if (path === '/readyz') return this.#answerReadiness(req, res, headers);
    if (path === this.#openapiPath) {
      answerRead(req, res, headers, this.#options.openapiJson, 200);
      return 'openapi';
    }
    const docs = this.#options.docs;
    if (docs?.has(path) === true) {
      docs.answer(req, res, headers, path);
      return 'docs';
    }
    return undefined;
  }

  /** /readyz: 200 while accepting and every backing server answers, else 503 saying which is not. */
  async #answerReadiness(req: IncomingMessage, res: ServerResponse, headers: ResponseHeaders): Promise<string> {
    let body = READYZ_OK;
    let status = 200;
    if (!this.#options.isAccepting()) {
      headers.set('connection', 'close');
      body = HEALTHZ_STOPPING;
      status = 503;
    } else if (isRead(req.method)) {
      try {
        await this.#options.checkReady();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        body = errorBody('unavailable', `The service is not ready: ${reason}`);
        status = 503;
      }
    }
    answerRead(req, res, headers, body, status);
    return 'readyz';
  }
}

/** The 404 of a path that is neither operational nor under the API's base path. */
export function sendNotServed(res: ServerResponse, headers: ResponseHeaders, path: string, basePath: string): void {
  sendError(res, new ApiError('not_found', `Nothing is served at ${path}; the API lives under ${basePath}`), headers);
}

/** A JSON answer to a read, or the 405 of any other method. */
function answerRead(
  req: IncomingMessage,
  res: ServerResponse,
  headers: ResponseHeaders,
  body: string,
  status: number,
): void {
  if (!refuseUnlessRead(req, res, headers)) sendJson(res, status, body, headers);
}
