// The answer to a request that failed: an ApiError becomes its Error body (src/core/errors.ts, the one
// table), anything else a 500 logged with the request id and never detailed, and a client that went
// away gets nothing (its status is noted for the access line only).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../core/errors.js';
import { sendError } from './answers.js';
import { announcesBody, ClientGoneError } from './body.js';
import { wasTimedOut } from './client-errors.js';
import type { ResponseHeaders } from './response-headers.js';

/** Answers `req` with `error`; a bug (not an ApiError) is told to `logError` with `requestId`. */
export function answerError(
  req: IncomingMessage,
  res: ServerResponse,
  headers: ResponseHeaders,
  error: unknown,
  requestId: string,
  logError: (requestId: string, error: unknown) => void,
): void {
  if (error instanceof ClientGoneError) {
    // For the access log: Node's 408, or nginx's 499 for a client that closed before its answer.
    res.statusCode = wasTimedOut(req) ? 408 : 499;
    res.destroy();
    return;
  }
  const apiError = error instanceof ApiError ? error : new ApiError('internal_error');
  if (!(error instanceof ApiError)) logError(requestId, error);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A body left unread (refused before or while reading it) is not drained: the connection closes.
  // Only a body: a request without one is kept alive, even when it is answered before Node has
  // marked it complete (a synchronous 401, 404 or 429 is sent before that happens).
  if (!req.complete && announcesBody(req)) headers.set('connection', 'close');
  try {
    sendError(res, apiError, headers);
  } catch (sendFailure) {
    // The answer itself could not be written (a bug on the way out): the connection is cut, so the
    // client sees a failure and not a hang, and the process goes on serving everyone else.
    logError(requestId, sendFailure);
    res.destroy();
  }
}
