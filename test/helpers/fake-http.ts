// Stand-ins for node:http's request and response, for tests of one step of the dispatcher without a
// socket: a request with the fields the steps read (and a body, when given, as a stream), and a
// response that records what was sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

/** What a fake request is made of; every header is sent as given, an array as that many fields. */
export interface FakeRequestParts {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[]>;
  httpVersion?: '1.0' | '1.1';
  remoteAddress?: string;
  body?: string;
}

/** A request as the dispatcher's steps see it. */
export function fakeRequest(parts: FakeRequestParts = {}): IncomingMessage {
  const rawHeaders: string[] = [];
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parts.headers ?? { host: 'test' })) {
    const values = Array.isArray(value) ? value : [value];
    for (const each of values) rawHeaders.push(name, each);
    headers[name.toLowerCase()] = values.join(', ');
  }
  const [major, minor] = (parts.httpVersion ?? '1.1').split('.').map(Number);
  const stream = Readable.from(parts.body === undefined ? [] : [Buffer.from(parts.body)]);
  return Object.assign(stream, {
    method: parts.method ?? 'GET',
    url: parts.url ?? '/',
    headers,
    rawHeaders,
    httpVersionMajor: major,
    httpVersionMinor: minor,
    complete: false,
    socket: { remoteAddress: parts.remoteAddress ?? '192.0.2.1' },
  }) as unknown as IncomingMessage;
}

/** A response that keeps what was sent on it. */
export class RecordedResponse {
  statusCode = 200;
  headersSent = false;
  destroyed = false;
  continues = 0;
  /** The flat header list of writeHead. */
  head: string[] = [];
  body: string | undefined;

  writeHead(status: number, list: string[]): this {
    this.statusCode = status;
    this.head = [...list];
    this.headersSent = true;
    return this;
  }

  end(body?: string | Buffer): this {
    if (body !== undefined) this.body = String(body);
    return this;
  }

  destroy(): this {
    this.destroyed = true;
    return this;
  }

  writeContinue(): void {
    this.continues++;
  }

  /** The header fields sent, by lower-case name. */
  get headers(): Record<string, string> {
    const fields: Record<string, string> = {};
    for (let index = 0; index < this.head.length; index += 2)
      fields[this.head[index] as string] = this.head[index + 1] as string;
    return fields;
  }

  /** The body sent, parsed. */
  get json(): unknown {
    return JSON.parse(this.body ?? 'null');
  }

  /** This, as node:http's type. */
  get res(): ServerResponse {
    return this as unknown as ServerResponse;
  }
}
