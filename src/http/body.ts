// Reading a JSON request body: the media type first, then the size from Content-Length before reading
// and again while streaming (so a lying or chunked body is cut off at the limit, never buffered whole),
// then strict UTF-8 and JSON.parse (CONTRACT.md section 2).
import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors.js';
import { countHeader } from './headers.js';

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

/** Is this Content-Type one of `mediaTypes`, with no parameter other than `charset=utf-8`? */
export function isJsonContentType(header: string, mediaTypes: readonly string[] = JSON_MEDIA_TYPES): boolean {
  const parts = header.split(';');
  const mediaType = (parts[0] as string).trim().toLowerCase();
  if (!mediaTypes.includes(mediaType)) return false;
  for (let index = 1; index < parts.length; index++) {
    const parameter = (parts[index] as string).trim().toLowerCase().replace(/\s*=\s*/, '=');
    if (parameter !== 'charset=utf-8' && parameter !== 'charset="utf-8"') return false;
  }
  return true;
}

/** Reads and parses the JSON body of `req`, refusing it with the contract's 400/413/415 answers. */
export async function readJsonBody(req: IncomingMessage, maxBytes: number, mediaTypes: readonly string[] = JSON_MEDIA_TYPES): Promise<unknown> {
  if (countHeader(req, 'content-type') > 1) {
    throw new ApiError('invalid_header', 'Header "Content-Type" must be sent once');
  }
  const declared = req.headers['content-length'];
  const declaredBytes = declared === undefined ? undefined : Number(declared);
  const mayHaveBody = declaredBytes === undefined ? req.headers['transfer-encoding'] !== undefined : declaredBytes > 0;
  const contentType = req.headers['content-type'];
  const jsonTyped = contentType !== undefined && isJsonContentType(contentType, mediaTypes);
  if (mayHaveBody && !jsonTyped) throw unsupportedMediaType(contentType, mediaTypes);
  if (declaredBytes !== undefined && declaredBytes > maxBytes) throw tooLarge(maxBytes);

  const bytes = mayHaveBody ? await readBytes(req, maxBytes) : Buffer.alloc(0);
  if (bytes.length === 0) {
    throw new ApiError('invalid_json', 'The request body is missing: send the resource as a JSON object');
  }
  // A chunked body announced no Content-Type check above could rely on; check it now that it is non-empty.
  if (!jsonTyped) throw unsupportedMediaType(contentType, mediaTypes);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid UTF-8 text, so it is not JSON');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof SyntaxError ? `: ${error.message}` : '';
    throw new ApiError('invalid_json', `The request body is not well-formed JSON${reason}`);
  }
}

function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('aborted', onGone);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        // Stop here: the answer goes out with "Connection: close" and the rest is never buffered.
        cleanup();
        req.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    };
    const onGone = (): void => {
      cleanup();
      reject(new ClientGoneError());
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('aborted', onGone);
  });
}

function tooLarge(maxBytes: number): ApiError {
  return new ApiError('payload_too_large', `The request body must be at most ${maxBytes} bytes`, undefined, { connection: 'close' });
}

function unsupportedMediaType(contentType: string | undefined, mediaTypes: readonly string[]): ApiError {
  const expected = mediaTypes.map((type) => `'${type}'`).join(' or ');
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type '${contentType}'`;
  return new ApiError('unsupported_media_type', `The request body was sent with ${sent}; send it as ${expected} (charset=utf-8 is the only parameter allowed)`);
}
