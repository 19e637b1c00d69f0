// A routed request's input: its `100 Continue`, then its body, read only once the request has been
// admitted, routed and its Idempotency-Key claimed (README "How the API behaves").
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readJsonBody, skipBody } from './body.js';
import type { Route } from './route.js';

/** Requests whose `100 Continue` Node left to the dispatcher (they came through `checkContinue`). */
const awaitingContinue = new WeakSet<IncomingMessage>();

/** Notes that `req` expects `100 Continue` and that Node left sending it to the dispatcher. */
export function awaitContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}

/**
 * The body of `req` for `route`: parsed JSON for a route that takes one, read and dropped (within the
 * same limits) for one that takes none, and not read at all for a GET or HEAD, whose body is ignored,
 * headers and all. Undefined when there is nothing to wait for, so that a read takes no turn of the
 * microtask queue.
 */
export function readInput(
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  maxBodyBytes: number,
): Promise<unknown> | undefined {
  // Expect: 100-continue is answered here, when the body is wanted (RFC 9110 §10.1.1): after the key,
  // the limits and the Idempotency-Key's claim, so a client refused before gets its final answer
  // without sending the body, and a repeat that arrives after the 100 finds the claim in place.
  if (awaitingContinue.delete(req)) res.writeContinue();
  if (route.bodyMediaTypes !== undefined)
    return readJsonBody(req, maxBodyBytes, route.bodyMediaTypes, route.bodyOptional ? {} : undefined);
  if (route.method !== 'GET') return skipBody(req, maxBodyBytes);
  return undefined;
}
