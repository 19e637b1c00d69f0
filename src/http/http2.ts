// HTTP/2 beside HTTP/1.1. A TLS service serves both on one port (ALPN), and node:http2's
// compatibility API hands the dispatcher request and response objects shaped like node:http's, so one
// dispatcher serves both. Where they differ, this module says what the HTTP/1 code meant in HTTP/2
// terms: the connection is a session (many requests at once, no socket of its own per request), a body
// is announced by the HEADERS frame not ending the stream (Content-Length is optional and
// Transfer-Encoding does not exist), and "Connection: close", forbidden in HTTP/2 (RFC 9113 §8.2.2),
// becomes a stream closed early or a GOAWAY.
import { IncomingMessage, type ServerResponse } from 'node:http';
import { constants, type Http2ServerRequest, type ServerHttp2Stream } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import type { ResponseHeaders } from './response-headers.js';

/**
 * Whether `req` came over HTTP/2 (node:http2's compatibility API). Its version alone does not say so:
 * Node's HTTP/1 parser also takes a text request line that names `HTTP/2.0`, and such a request has no
 * stream; request-checks.ts refuses it.
 */
export function isHttp2(req: IncomingMessage): boolean {
  return req.httpVersionMajor === 2 && !(req instanceof IncomingMessage);
}

/** The stream of an HTTP/2 request. */
function streamOf(req: IncomingMessage): ServerHttp2Stream {
  return (req as unknown as Http2ServerRequest).stream;
}

/**
 * What a request came over, for what is kept per connection: the socket of an HTTP/1 request, the
 * session of an HTTP/2 one (its `socket` is a proxy made per stream). Null for a request made up
 * without one, or whose session is gone.
 */
export function connectionOf(req: IncomingMessage): object | null {
  if (isHttp2(req)) return streamOf(req).session ?? null;
  return req.socket ?? null;
}

/** The peer's address: the socket's, or that of the socket under the HTTP/2 session. */
export function remoteAddressOf(req: IncomingMessage): string | undefined {
  if (isHttp2(req)) return streamOf(req).session?.socket?.remoteAddress;
  return req.socket.remoteAddress;
}

/** Whether `req` came over TLS (Strict-Transport-Security is sent over TLS only, RFC 6797 §7.2). */
export function isSecure(req: IncomingMessage): boolean {
  if (isHttp2(req)) return streamOf(req).session?.encrypted === true;
  return (req.socket as TLSSocket | null)?.encrypted === true;
}

/**
 * Whether a body follows the head without a declared length: chunked in HTTP/1.1; in HTTP/2, DATA
 * frames after a HEADERS frame that did not end the stream (a Content-Length is optional there).
 */
export function bodyWithoutLength(req: IncomingMessage): boolean {
  if (isHttp2(req)) return !streamOf(req).endAfterHeaders;
  return req.headers['transfer-encoding'] !== undefined;
}

/**
 * Writes an answer over HTTP/2. "Connection: close" is dropped: in HTTP/1.1 it ends a connection on
 * which an unread body would be taken for the next request, or one the stopping service wants a
 * client to leave. Over HTTP/2 a body left unread ends its own stream only (RST_STREAM with NO_ERROR
 * once the answer is out: "stop sending", RFC 9113 §8.1), and a stopping service sends every session
 * a GOAWAY (src/app/listener.ts); the other requests of the connection go on.
 */
export function sendOverHttp2(res: ServerResponse, status: number, body: string, headers: ResponseHeaders): void {
  headers.remove('connection');
  res.writeHead(status, headers.list);
  res.end(body);
  const stream = streamOf(res.req);
  // Read to its end, or none sent: the stream is closed by the answer's end.
  if (!stream.endAfterHeaders && !res.req.readableEnded) stream.close(constants.NGHTTP2_NO_ERROR);
}
