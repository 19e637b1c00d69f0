// The resources that only answer reads (/healthz, /readyz, the OpenAPI document, the /docs page):
// GET and HEAD (RFC 9110 §9.3.1, §9.3.2); any other method is 405 with the Allow field the status
// requires (RFC 9110 §15.5.6). One rule, one wording, for all of them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../core/errors.js';
import { sendError } from './answers.js';
import type { ResponseHeaders } from './response-headers.js';

/** The Allow value of a read-only resource. */
export const READ_METHODS = 'GET, HEAD';

/** Whether `method` reads: GET or HEAD. */
export function isRead(method: string | undefined): boolean {
  return method === 'GET' || method === 'HEAD';
}

/** Answers 405 unless `req` is a GET or HEAD; true when it did, and the request is answered. */
export function refuseUnlessRead(req: IncomingMessage, res: ServerResponse, headers: ResponseHeaders): boolean {
  if (isRead(req.method)) return false;
  headers.set('allow', READ_METHODS);
  sendError(
    res,
    new ApiError('method_not_allowed', `Method ${req.method} is not allowed here; use GET or HEAD`),
    headers,
  );
  return true;
}
