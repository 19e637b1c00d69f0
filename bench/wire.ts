// HTTP/1.1 on the wire, as the load generator needs it and no more: a request serialised once into the
// bytes a connection writes again and again, and a response parser that reads status, framing and (only
// when asked) headers, then skips the body by counting its bytes. A general client such as undici does
// far more per answer (header objects, body streams, events); on the one core a load generator gets,
// that work caps the rate it can drive below what the server can answer, and the figure then measures
// the generator. wrk and autocannon read answers the same lean way. Pure: no sockets, no clock.
// Framing follows RFC 9112 section 6: no body for HEAD, 1xx, 204 and 304; chunked before
// Content-Length; otherwise the body runs to the end of the connection.

/** One request to send. Specs are built once by a scenario and reused, so sending allocates little. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'HEAD';
  /** Path and query, base path included. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** Response headers with lower-case names, a repeated header as a list (as undici gives them). */
export type ResponseHeaders = Record<string, string | string[] | undefined>;

/** The bytes of `spec` as a request to `host` (host[:port]); Content-Length is added for a body. */
export function encodeRequest(spec: RequestSpec, host: string): Buffer {
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\n`;
  const names = Object.keys(spec.headers).map((name) => name.toLowerCase());
  if (!names.includes('host')) head += `host: ${host}\r\n`;
  for (const [name, value] of Object.entries(spec.headers)) head += `${name}: ${value}\r\n`;
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
  if (body !== undefined && !names.includes('content-length')) head += `content-length: ${body.length}\r\n`;
  head += '\r\n';
  return body === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), body]);
}

/** A response that breaks HTTP/1.1's framing: the connection cannot be read any further. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
  readonly code = 'HTTP_PROTOCOL_ERROR';
}

/** What the parser reports for each complete response. */
export interface ResponseSink {
  /** Whether the response now being read answers a HEAD request (it then has no body). */
  answersHead(): boolean;
  /**
   * One complete response: its status, its headers (only when the parser keeps them), its body's
   * length, and whether the connection may carry another request after it.
   */
  response(status: number, headers: ResponseHeaders | undefined, bodyBytes: number, reusable: boolean): void;
}

const CRLF = 0x0d0a;
/** Status line and headers larger than this are refused (Node's own limit for requests is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;
const enum State {
  Head,
  FixedBody,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  BodyToClose,
  /** After an answer that ends the connection: nothing more is read from it. */
  Closed,
}

/** Reads responses from the bytes of one connection, in order, however the bytes are split. */
export class ResponseParser {
  readonly #sink: ResponseSink;
  readonly #keepHeaders: boolean;
  #state = State.Head;
  /** Bytes of an unfinished head (or chunk-size line, or trailer) carried over to the next chunk. */
  #carry: Buffer | undefined;
  #status = 0;
  #headers: ResponseHeaders | undefined;
  #reusable = true;
  #bodyBytes = 0;
  /** Body (or current chunk) bytes still to skip. */
  #remaining = 0;

  constructor(sink: ResponseSink, keepHeaders: boolean) {
    this.#sink = sink;
    this.#keepHeaders = keepHeaders;
  }

  /** Reads `chunk`; reports every response it completes. Throws ProtocolError on bytes that are not HTTP/1.1. */
  feed(chunk: Buffer): void {
    let data = chunk;
    if (this.#carry !== undefined) {
      data = Buffer.concat([this.#carry, chunk]);
      this.#carry = undefined;
    }
    let offset = 0;
    while (offset < data.length) {
      switch (this.#state) {
        case State.Closed:
          return;
        case State.Head: {
          const end = data.indexOf('\r\n\r\n', offset, 'latin1');
          if (end === -1) return this.#keep(data, offset);
          this.#readHead(data, offset, end);
          offset = end + 4;
          break;
        }
        case State.FixedBody:
        case State.ChunkData:
        case State.BodyToClose: {
          const taken =
            this.#state === State.BodyToClose ? data.length - offset : Math.min(this.#remaining, data.length - offset);
          this.#bodyBytes += taken;
          this.#remaining -= taken;
          offset += taken;
          if (this.#state === State.FixedBody && this.#remaining === 0) this.#complete();
          else if (this.#state === State.ChunkData && this.#remaining === 0) this.#state = State.ChunkDataEnd;
          break;
        }
        case State.ChunkDataEnd: {
          if (data.length - offset < 2) return this.#keep(data, offset);
          if (data.readUInt16BE(offset) !== CRLF) throw new ProtocolError('a chunk is not followed by CRLF');
          offset += 2;
          this.#state = State.ChunkSize;
          break;
        }
        case State.ChunkSize: {
          const end = data.indexOf('\r\n', offset, 'latin1');
          if (end === -1) return this.#keep(data, offset);
          // The size is hexadecimal, maybe followed by ";extension" (RFC 9112 section 7.1.1).
          const line = data.toString('latin1', offset, end);
          const size = /^[0-9A-Fa-f]{1,8}(?=[ \t;]|$)/.exec(line);
          if (size === null) throw new ProtocolError(`bad chunk size line "${line.slice(0, 40)}"`);
          this.#remaining = Number.parseInt(size[0], 16);
          offset = end + 2;
          this.#state = this.#remaining === 0 ? State.Trailers : State.ChunkData;
          break;
        }
        case State.Trailers: {
          const end = data.indexOf('\r\n', offset, 'latin1');
          if (end === -1) return this.#keep(data, offset);
          // An empty line ends the trailer section, and with it the message.
          const empty = end === offset;
          offset = end + 2;
          if (empty) this.#complete();
          break;
        }
      }
    }
  }

  /**
   * The connection ended. Completes a body that runs to the close; returns false when a response
   * was cut off in the middle (then it is lost), true when the connection ended between responses.
   */
  end(): boolean {
    if (this.#state === State.BodyToClose) {
      this.#reusable = false;
      this.#complete();
      return true;
    }
    return this.#state === State.Closed || (this.#state === State.Head && this.#carry === undefined);
  }

  #keep(data: Buffer, offset: number): void {
    if (data.length - offset > MAX_HEAD_BYTES) throw new ProtocolError(`a response head over ${MAX_HEAD_BYTES} bytes`);
    this.#carry = data.subarray(offset);
  }

  #readHead(data: Buffer, start: number, end: number): void {
    const head = data.toString('latin1', start, end);
    // "HTTP/1.1 200 OK": the version, one space, three digits.
    if (!head.startsWith('HTTP/1.') || head.length < 12 || head[8] !== ' ')
      throw new ProtocolError(`not an HTTP/1.x status line: "${head.slice(0, 40)}"`);
    const status = Number(head.slice(9, 12));
    if (!Number.isInteger(status) || status < 100) throw new ProtocolError(`bad status in "${head.slice(0, 40)}"`);
    let reusable = head[7] === '1';
    let contentLength = -1;
    let chunked = false;
    const headers: ResponseHeaders | undefined = this.#keepHeaders ? {} : undefined;
    let lineStart = head.indexOf('\r\n') + 2;
    while (lineStart > 1 && lineStart < head.length) {
      let lineEnd = head.indexOf('\r\n', lineStart);
      if (lineEnd === -1) lineEnd = head.length;
      const colon = head.indexOf(':', lineStart);
      if (colon === -1 || colon > lineEnd) throw new ProtocolError(`a header line without a colon`);
      const first = head.charCodeAt(lineStart) | 0x20;
      // Only three headers decide the framing; the others are read only when kept.
      if (first === 0x63 /* c */ || first === 0x74 /* t */ || headers !== undefined) {
        const name = head.slice(lineStart, colon).toLowerCase();
        const value = head.slice(colon + 1, lineEnd).trim();
        if (name === 'content-length') {
          if (!/^[0-9]{1,15}$/.test(value)) throw new ProtocolError(`bad Content-Length "${value.slice(0, 40)}"`);
          contentLength = Number(value);
        } else if (name === 'transfer-encoding') {
          chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
        } else if (name === 'connection') {
          if (/(?:^|,)\s*close\s*(?:,|$)/i.test(value)) reusable = false;
          else if (/(?:^|,)\s*keep-alive\s*(?:,|$)/i.test(value)) reusable = true;
        }
        if (headers !== undefined) {
          const before = headers[name];
          headers[name] = before === undefined ? value : Array.isArray(before) ? [...before, value] : [before, value];
        }
      }
      lineStart = lineEnd + 2;
    }
    // 1xx answers are interim (RFC 9110 section 15.2): the real one follows.
    if (status < 200) return;
    this.#status = status;
    this.#headers = headers;
    this.#reusable = reusable;
    this.#bodyBytes = 0;
    if (this.#sink.answersHead() || status === 204 || status === 304) this.#complete();
    else if (chunked) {
      this.#state = State.ChunkSize;
    } else if (contentLength >= 0) {
      this.#remaining = contentLength;
      if (contentLength === 0) this.#complete();
      else this.#state = State.FixedBody;
    } else {
      this.#state = State.BodyToClose;
    }
  }

  #complete(): void {
    this.#state = this.#reusable ? State.Head : State.Closed;
    this.#sink.response(this.#status, this.#headers, this.#bodyBytes, this.#reusable);
  }
}
