// HTTP that Node refuses before the service sees a request (README "How the API behaves"): it is answered with
// the JSON error body where the socket can still take one, then closed. No key is charged for it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { rawErrorResponse } from './answers.js';
import { isHttp2 } from './http2.js';
import { requestIdOf } from './request-id.js';

/** The message of the 408 for a request whose headers or body were not received in time. */
export const REQUEST_TIMEOUT_MESSAGE =
  'The request headers or body were not received in time; send the whole request promptly';

/** Node's error codes for a request it could not parse, mapped to the contract's answers. */
function answerFor(code: string | undefined, maxHeaderBytes: number, extraFields: string, requestId: string): string {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawErrorResponse(
        'headers_too_large',
        `The request headers are larger than ${describeBytes(maxHeaderBytes)}; send fewer or shorter headers`,
        extraFields,
        requestId,
      );
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawErrorResponse('request_timeout', REQUEST_TIMEOUT_MESSAGE, extraFields, requestId);
    default:
      return rawErrorResponse(
        'bad_request',
        'The request is not valid HTTP/1.1 (RFC 9112); check the request line, headers and framing',
        extraFields,
        requestId,
      );
  }
}

/** "16 KiB" for whole KiB, else the byte count: the limit as an operator configured it. */
export function describeBytes(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/**
 * Connections Node cut off with 408 for a slow request (HTTP/1), and HTTP/2 requests the service cut
 * off likewise (http2-timeout.ts). One whose headers were in is already being served: the dispatcher
 * looks here when its body stops arriving, to take back the key's token, since a 408 counts against no
 * key (README "How the API behaves").
 */
const timedOut = new WeakSet<object>();

/** Was `req` (or, over HTTP/1, the connection it came on) cut off by the request timeout? */
export function wasTimedOut(req: IncomingMessage): boolean {
  // An HTTP/2 request's `socket` is a proxy made on demand: the request itself is what is noted.
  return timedOut.has(req) || (!isHttp2(req) && timedOut.has(req.socket));
}

/** Notes that the HTTP/2 request `req` was cut off by the request timeout. */
export function noteTimedOut(req: IncomingMessage): void {
  timedOut.add(req);
}

/**
 * The server's `clientError` listener, for a server whose request heads may be `maxHeaderBytes` long;
 * `hsts` is the Strict-Transport-Security value its answers over TLS carry, if any.
 */
export const clientErrorListener =
  (maxHeaderBytes: number, hsts?: string) =>
  (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOut.add(socket);
    // A reset or an already-answered socket has nobody left to tell.
    const response = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true) {
      socket.destroy();
      return;
    }
    const answer = (): void => {
      if (!socket.writable) return;
      const secure = hsts !== undefined && (socket as TLSSocket).encrypted === true;
      // A request whose head was read and whose body came too slowly keeps the id its client gave it;
      // bytes behind a whole request are another request, whose head could not be read.
      const ownRequest =
        error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && response !== undefined && !response.req.complete
          ? response.req
          : undefined;
      const requestId = requestIdOf(ownRequest?.headers['x-request-id']);
      const fields = secure ? `Strict-Transport-Security: ${hsts}\r\n` : '';
      socket.end(answerFor(error.code, maxHeaderBytes, fields, requestId));
      // Closed for reading too, once the answer is out (as Node's own handler does): a half-open client
      // must not go on sending a request it was told has failed.
      socket.destroySoon();
    };
    // Bytes that are not HTTP behind a whole request (pipelined): that request is being served, and may
    // be a change already made, so its answer goes out first, then the 400 (RFC 9112 §9.3.2: answers
    // in the order of the requests). A request whose own framing broke is answered at once.
    if (response !== undefined && !response.writableFinished && response.req.complete) {
      response.once('finish', answer);
      response.once('close', answer);
      return;
    }
    answer();
  };
