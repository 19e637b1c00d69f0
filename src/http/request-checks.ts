// Checks of a request's head that Node's parser leaves to the service: an HTTP/1 version on a request
// framed as HTTP/1, one Host on HTTP/1.1, a request target within the configured length, and the rule
// for fields that must not be repeated. Node keeps only the first of some repeated fields
// (Authorization, Content-Type) and joins others with ", ", so repeats are counted on the raw list.
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/errors.js';
import { describeBytes } from './client-errors.js';
import { countHeader } from './headers.js';
import { isHttp2 } from './http2.js';

/** A request refused before anything else is looked at, and what its access line shows for the path. */
export interface RequestFault {
  error: ApiError;
  /** The path of the access line: the target is not logged when it is the fault. */
  loggedPath: '(bad version)' | '(bad host)' | '(too long)' | '(head too large)';
}

/** Why the head of `req` cannot be served at all, or undefined when it can. */
export function requestFault(
  req: IncomingMessage,
  maxUrlBytes: number,
  maxHeaderBytes: number,
): RequestFault | undefined {
  // Node's HTTP/1 parser takes a text request line naming HTTP/0.9 or HTTP/2.0. HTTP/0.9 had neither
  // version nor headers, and HTTP/2 is a binary framing (RFC 9113), so such a request cannot be read
  // as its sender meant it: 400, and the connection closed, as for any other head not to be trusted.
  if (req.httpVersionMajor !== 1 && !isHttp2(req)) {
    const error = new ApiError(
      'bad_request',
      `The request line names HTTP/${req.httpVersionMajor}.${req.httpVersionMinor}: send HTTP/1.1 or HTTP/1.0 (HTTP/2 is served over TLS)`,
      undefined,
      { headers: { connection: 'close' } },
    );
    return { error, loggedPath: '(bad version)' };
  }
  // RFC 9112 §3.2: an HTTP/1.1 request with no Host, or more than one, is answered 400; the
  // connection is closed, as what follows on it cannot be trusted to be framed as the client meant.
  if (req.httpVersionMinor === 1 && req.httpVersionMajor === 1 && countHeader(req, 'host') !== 1) {
    const error = new ApiError(
      'bad_request',
      'An HTTP/1.1 request must carry exactly one Host header (RFC 9112 section 3.2)',
      undefined,
      { headers: { connection: 'close' } },
    );
    return { error, loggedPath: '(bad host)' };
  }
  // nghttp2 holds a client to the advertised SETTINGS_MAX_HEADER_LIST_SIZE only once it has acknowledged
  // the server's SETTINGS: the first requests of a connection could bring a larger head. Counted here
  // as an HTTP/1.1 head of the same fields would be, and answered as HTTP/1.1 answers it.
  if (isHttp2(req) && headBytes(req.rawHeaders) > maxHeaderBytes) {
    const error = new ApiError(
      'headers_too_large',
      `The request headers are larger than ${describeBytes(maxHeaderBytes)}; send fewer or shorter headers`,
    );
    return { error, loggedPath: '(head too large)' };
  }
  if ((req.url ?? '/').length > maxUrlBytes) {
    const error = new ApiError('uri_too_long', `The request target is longer than ${maxUrlBytes} bytes`);
    return { error, loggedPath: '(too long)' };
  }
  return undefined;
}

/**
 * README "Errors": a field the request sends more than once where only one makes sense (Content-Type
 * or Idempotency-Key on a request with a body) is 400 invalid_header. `name` as it is spelt in messages.
 */
export function assertSentOnce(req: IncomingMessage, name: string): void {
  if (countHeader(req, name.toLowerCase()) > 1) throw repeatedField(name);
}

/** The 400 of the field `name` sent more than once, in the one wording of that rule. */
export function repeatedField(name: string): ApiError {
  return new ApiError('invalid_header', `Header "${name}" must be sent once`, [
    { path: name, message: `"${name}" was sent more than once` },
  ]);
}

/** The bytes of the fields `rawHeaders` as an HTTP/1.1 head writes them: `name: value` and CRLF each. */
function headBytes(rawHeaders: readonly string[]): number {
  let bytes = 0;
  for (const field of rawHeaders) bytes += Buffer.byteLength(field);
  return bytes + (rawHeaders.length / 2) * 4;
}
