// Reading a JSON request body: the media type first, then the size from Content-Length before reading
// and again while streaming (so a lying or chunked body is cut off at the limit, never buffered whole),
// then strict UTF-8 and JSON.parse, numbers kept exact (README "Errors").
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../core/errors.js';
import { wasTimedOut } from './client-errors.js';
import { bodyWithoutLength } from './http2.js';
import { parseJsonText } from './json-text.js';
import { assertSentOnce } from './request-checks.js';

/** Media types a JSON body may be sent as; PATCH adds `application/merge-patch+json` (RFC 7396). */
export const JSON_MEDIA_TYPES: readonly string[] = ['application/json'];

// Fatal: a byte sequence that is not UTF-8 is not JSON text (RFC 8259 §8.1). ignoreBOM keeps a BOM in
// the decoded text, so JSON.parse refuses it, as the contract asks.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Thrown when the client went away while its body was read: there is nobody to answer. */
export class ClientGoneError extends Error {
  constructor() {
    super('the client closed the connection while sending the request body');
    this.name = 'ClientGoneError';
  }
}

/**
 * Is this Content-Type one of `mediaTypes`, with no parameter other than one `charset=utf-8`? Empty
 * parameters (`application/json;`) are allowed, as RFC 9110 section 5.6.6's grammar allows them.
 */
export function isJsonContentType(header: string, mediaTypes: readonly string[] = JSON_MEDIA_TYPES): boolean {
  const parts = header.split(';');
  const mediaType = (parts[0] as string).trim().toLowerCase();
  if (!mediaTypes.includes(mediaType)) return false;
  let charsets = 0;
  for (let index = 1; index < parts.length; index++) {
    const parameter = (parts[index] as string)
      .trim()
      .toLowerCase()
      .replace(/\s*=\s*/, '=');
    if (parameter === '') continue;
    if (parameter !== 'charset=utf-8' && parameter !== 'charset="utf-8"') return false;
    charsets++;
  }
  return charsets <= 1;
}

/** Does `req` announce a body: a Content-Length above 0, or one without a length (chunked, or HTTP/2 DATA)? */
export function announcesBody(req: IncomingMessage): boolean {
  const declared = req.headers['content-length'];
  return declared === undefined ? bodyWithoutLength(req) : Number(declared) > 0;
}

/** The fields a request with a body must not repeat, in the order they are checked. */
const SINGLE_FIELDS = ['Content-Type', 'Idempotency-Key'];

function checkSingleHeaders(req: IncomingMessage): void {
  for (const name of SINGLE_FIELDS) assertSentOnce(req, name);
}

/**
 * Reads and parses the JSON body of `req`, refusing it with the contract's 400/413/415 answers. A
 * request without a body, or with an empty one, gets `whenEmpty` where the route's body is optional.
 */
export async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
  mediaTypes: readonly string[] = JSON_MEDIA_TYPES,
  whenEmpty?: object,
): Promise<unknown> {
  // Without a body the request is "body missing" (invalid_json) whatever its headers say.
  if (announcesBody(req)) checkSingleHeaders(req);
  const bytes = await readTypedBytes(req, maxBytes, mediaTypes);
  if (bytes.length === 0) {
    if (whenEmpty !== undefined) return whenEmpty;
    throw new ApiError('invalid_json', 'The request body is missing: send the resource as a JSON object');
  }
  return parseJsonBytes(bytes);
}

/** The JSON value of a body's bytes, refused with 400 invalid_json unless they are UTF-8 JSON text. */
function parseJsonBytes(bytes: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8 text, so it is not JSON');
  }
  try {
    return parseJsonText(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? `: ${error.message}` : '';
    throw new ApiError('invalid_json', `The request body is not well-formed JSON${reason}`);
  }
}

/**
 * The body of an operation that takes none (DELETE, a rotation): it is read and dropped, so the
 * connection can be kept, but only within the same limits as any body: over the limit 413, not of a
 * JSON media type 415, not JSON text 400 invalid_json, repeated Content-Type or Idempotency-Key 400.
 * An empty body, or none, is what such a request should carry.
 */
export async function skipBody(req: IncomingMessage, maxBytes: number): Promise<void> {
  if (!announcesBody(req)) return;
  checkSingleHeaders(req);
  const bytes = await readTypedBytes(req, maxBytes, JSON_MEDIA_TYPES);
  if (bytes.length > 0) parseJsonBytes(bytes);
}

/**
 * The body's bytes, refused with 415 when it is non-empty and not of `mediaTypes` and with 413 when it
 * is over `maxBytes`; both as soon as they are known, before the rest is read. Only a non-empty body
 * has a media type: an empty one, even chunked, is read to its end and returned empty.
 */
async function readTypedBytes(req: IncomingMessage, maxBytes: number, mediaTypes: readonly string[]): Promise<Buffer> {
  const declared = req.headers['content-length'];
  const declaredBytes = declared === undefined ? undefined : Number(declared);
  const contentType = req.headers['content-type'];
  const coding = contentCodingOf(req);
  const jsonTyped = contentType !== undefined && coding === undefined && isJsonContentType(contentType, mediaTypes);
  const refusal = (): ApiError =>
    coding === undefined ? unsupportedMediaType(contentType, mediaTypes) : unsupportedCoding(coding);
  if (declaredBytes !== undefined) {
    if (declaredBytes === 0) return EMPTY;
    if (!jsonTyped) throw refusal();
    if (declaredBytes > maxBytes) throw tooLarge(maxBytes);
  } else if (!bodyWithoutLength(req)) {
    return EMPTY;
  }
  // A chunked body of another media type is refused at its first byte; an empty one reads as empty.
  return readBytes(req, maxBytes, jsonTyped ? undefined : refusal);
}

/** The request's Content-Encoding, unless it has none or says `identity` (no coding at all). */
function contentCodingOf(req: IncomingMessage): string | undefined {
  const coding = req.headers['content-encoding'];
  if (coding === undefined) return undefined;
  return /^[\t ]*identity[\t ]*$/i.test(coding) ? undefined : coding;
}

const EMPTY = Buffer.alloc(0);

function readBytes(
  req: IncomingMessage,
  maxBytes: number,
  refuseContent: (() => ApiError) | undefined,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
      req.off('close', onGone);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (refuseContent !== undefined && chunk.length > 0) {
        cleanup();
        req.pause();
        reject(refuseContent());
        return;
      }
      if (received > maxBytes) {
        // Stop here: the answer goes out with "Connection: close" (over HTTP/2, its stream is closed
        // after it) and the rest is never buffered.
        cleanup();
        req.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      // An HTTP/2 stream the request timeout closed ends its request as if the body were whole: what
      // arrived is not the body (over HTTP/1.1, Node destroys the socket and no end comes).
      if (wasTimedOut(req)) {
        reject(new ClientGoneError());
        return;
      }
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    };
    const onGone = (): void => {
      cleanup();
      reject(new ClientGoneError());
    };
    // A connection Node destroyed while the request waited (its limiter or Idempotency-Key claim on a
    // server across the network) emits nothing more: without this check the read would wait forever.
    // So does an HTTP/2 stream closed meanwhile: Node drained its request to the end, unread.
    if (req.destroyed || req.readableEnded) {
      reject(new ClientGoneError());
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
    // A close before the end means the body will never be whole.
    req.on('close', onGone);
  });
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `The request body must be at most ${maxBytes} bytes`, undefined, {
    headers: { connection: 'close' },
  });
}

/**
 * A body compressed (or otherwise coded) is not taken: 415, with Accept-Encoding saying what is, as
 * RFC 9110 section 12.5.3 asks of a server that does not accept a request's content coding.
 */
function unsupportedCoding(coding: string): ApiError {
  return new ApiError(
    'unsupported_media_type',
    `The request body was sent with Content-Encoding '${coding}'; send it uncompressed, with no Content-Encoding`,
    undefined,
    { headers: { 'accept-encoding': 'identity' } },
  );
}

function unsupportedMediaType(contentType: string | undefined, mediaTypes: readonly string[]): ApiError {
  const expected = mediaTypes.map((type) => `'${type}'`).join(' or ');
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type '${contentType}'`;
  return new ApiError(
    'unsupported_media_type',
    `The request body was sent with ${sent}; send it as ${expected} (charset=utf-8 is the only parameter allowed)`,
  );
}
