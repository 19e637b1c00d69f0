// Request ids (README "Errors"): every answer carries one, the client's own when it is usable.
import { randomBytes } from 'node:crypto';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * New request ids: a random prefix per process and a counter. Unique across processes and restarts
 * (72 random bits), and cheaper than a UUID per request; an id only has to tell requests apart in
 * the logs, not to be unguessable.
 */
const REQUEST_ID_PREFIX = randomBytes(9).toString('base64url');
let requestCounter = 0;

/** The client's own X-Request-Id when it is 1 to 128 characters of [A-Za-z0-9._:-], else a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  if (typeof header === 'string' && REQUEST_ID.test(header)) return header;
  requestCounter++;
  return `${REQUEST_ID_PREFIX}-${requestCounter.toString(36)}`;
}
