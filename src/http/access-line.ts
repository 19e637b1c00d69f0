// The last step of every request: its access line (docs/deployment.md: request id, method,
// path without the query, status, duration, key id) and what metrics are told. With neither, the
// clock is not even read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessEntry } from '../logging/logger.js';
import type { RequestObserver } from './request-observer.js';

/** Where an answered request is told of. */
export class AccessLine {
  readonly #accessLog: ((entry: AccessEntry) => void) | undefined;
  readonly #observe: RequestObserver | undefined;
  readonly #timed: boolean;

  constructor(accessLog: ((entry: AccessEntry) => void) | undefined, observe: RequestObserver | undefined) {
    this.#accessLog = accessLog;
    this.#observe = observe;
    this.#timed = accessLog !== undefined || observe !== undefined;
  }

  /** The time a request arrived, in performance.now() ms; 0 when nobody is told of durations. */
  start(): number {
    return this.#timed ? performance.now() : 0;
  }

  /**
   * Tells of the answered request: `path` as logged (a placeholder for a malformed one), `keyId` once
   * authenticated, `operation` its operationId or what else it was (request-observer.ts).
   */
  record(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
    path: string,
    startedMs: number,
    keyId: string | undefined,
    operation: string,
  ): void {
    if (!this.#timed) return;
    const elapsedMs = performance.now() - startedMs;
    this.#observe?.answered(operation, res.statusCode, elapsedMs / 1000);
    const accessLog = this.#accessLog;
    if (accessLog === undefined) return;
    const durationMs = Math.round(elapsedMs * 1000) / 1000;
    accessLog({ requestId, method: req.method ?? '', path, status: res.statusCode, durationMs, keyId });
  }
}
