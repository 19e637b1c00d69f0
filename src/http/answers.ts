// Writing answers: every one is JSON with `application/json; charset=utf-8`, a Content-Length and the
// X-Request-Id (README "Errors"), but a 204, which has no content. Errors become the `{code, message, status}` body here only.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiError, ERRORS, errorBody } from '../core/errors.js';
import { isHttp2, sendOverHttp2 } from './http2.js';
import { requestIdOf } from './request-id.js';
import type { ResponseHeaders } from './response-headers.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const NO_CONTENT = 204;

/** Sends `body` (JSON text) with `status` and `headers`; a HEAD answer carries the headers only (Node drops the body). */
export function sendJson(res: ServerResponse, status: number, body: string, headers: ResponseHeaders): void {
  const length = Buffer.byteLength(body);
  // A 204 has no content, so no type, and must not carry a Content-Length (RFC 9110 §8.6).
  if (status !== NO_CONTENT) {
    headers.set('content-type', JSON_CONTENT_TYPE);
    headers.set('content-length', String(length));
  }
  // A response made up without its request (a test's, an embedding program's) is HTTP/1's.
  const req = res.req as IncomingMessage | undefined;
  if (req !== undefined && isHttp2(req)) {
    sendOverHttp2(res, status, body, headers);
    return;
  }
  res.writeHead(status, headers.list);
  // node:http writes its header block and a text body as one string, in the body's encoding. As
  // UTF-8 that is encoded character by character, header block included; as Latin-1 it is a plain
  // copy. A body whose UTF-8 length is its length in characters is ASCII, whose Latin-1 bytes are
  // its UTF-8 bytes: so it goes out as Latin-1 (under callgrind, about 4,000 instructions fewer a
  // `get`, some 4 % of its answer). A body with other characters goes out as UTF-8, as before.
  // (Given as a Buffer, the body would be one more chunk to write, which cost more than it saved.)
  res.end(body, length === body.length ? 'latin1' : 'utf8');
}

/** Sends an ApiError as the Error body, with its own headers (and Retry-After, when it has one) added to `headers`. */
export function sendError(res: ServerResponse, error: ApiError, headers: ResponseHeaders): void {
  if (error.headers !== undefined) headers.setAll(error.headers);
  if (error.retryAfterSeconds !== undefined) headers.set('retry-after', String(error.retryAfterSeconds));
  sendJson(res, error.status, errorBody(error.code, error.message, error.details), headers);
}

/**
 * The raw bytes of an error answer, for a socket Node took away from the request/response API;
 * `extraFields` are whole header lines (`Strict-Transport-Security: max-age=…\r\n`).
 */
export function rawErrorResponse(
  code: 'bad_request' | 'request_timeout' | 'uri_too_long' | 'headers_too_large',
  message?: string,
  extraFields = '',
  requestId = requestIdOf(undefined),
): string {
  const { status } = ERRORS[code];
  const body = errorBody(code, message ?? ERRORS[code].message);
  const reason = {
    400: 'Bad Request',
    408: 'Request Timeout',
    414: 'URI Too Long',
    431: 'Request Header Fields Too Large',
  }[status];
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n${extraFields}Connection: close\r\n\r\n${body}`;
}
