// The request timeout over HTTP/2. Over HTTP/1 Node's parser cuts off a request whose headers or body
// take too long, and client-errors.ts answers its 408. HTTP/2 has no such timer: a request's head comes
// in one HEADERS frame, but its body could trickle in a byte a second for ever. Here an HTTP/2 request
// with a body gets the same bound: not whole within the request timeout, it is answered 408 with the
// JSON body (if nothing was answered yet) and its stream is closed; like every 408 it counts against no
// key (the dispatcher gives the token back). A silent connection is the session's idle timeout's
// (src/app/listener.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { constants, type Http2ServerRequest } from 'node:http2';
import { ApiError } from '../core/errors.js';
import { sendError } from './answers.js';
import { noteTimedOut, REQUEST_TIMEOUT_MESSAGE } from './client-errors.js';
import { requestIdOf } from './request-id.js';
import { ResponseHeaders } from './response-headers.js';

/**
 * Bounds how long the body of the HTTP/2 request `req` may take to arrive: `timeoutMs` from its head.
 * `hsts` is the Strict-Transport-Security value of the answers, if any.
 */
export function boundHttp2Request(
  req: IncomingMessage,
  res: ServerResponse,
  timeoutMs: number,
  hsts: string | undefined,
): void {
  const stream = (req as unknown as Http2ServerRequest).stream;
  // No body follows the head: nothing to wait for.
  if (stream.endAfterHeaders) return;
  const timer = setTimeout(() => {
    noteTimedOut(req);
    if (res.headersSent) {
      stream.close(constants.NGHTTP2_CANCEL);
      return;
    }
    const headers = new ResponseHeaders(requestIdOf(req.headers['x-request-id']));
    if (hsts !== undefined) headers.set('strict-transport-security', hsts);
    // Its body unread, the stream is closed once this answer is out (http2.ts).
    sendError(res, new ApiError('request_timeout', REQUEST_TIMEOUT_MESSAGE), headers);
  }, timeoutMs);
  const done = (): void => clearTimeout(timer);
  req.once('end', done);
  stream.once('close', done);
}
