// Carrying out a POST under an Idempotency-Key (CONTRACT.md section 9): a repeat with an equal body
// gets the stored answer again with `Idempotent-Replayed: true`; another body, or a repeat while the
// first is in flight, is 409; a first attempt that fails is not remembered, so a retry can succeed.
import { ApiError } from '../errors.js';
import type { Answer } from '../http/operation.js';
import type { IdempotencyTag } from '../state/changes.js';
import { bodyFingerprint } from './canonical-json.js';
import { IDEMPOTENCY_TTL_MS, type IdempotencyStore, type IdempotentAnswer } from './idempotency-store.js';

/** The Idempotency-Key of a request, the scope it lives in (API key and route), and its arrival ticket. */
export interface IdempotencyRequest {
  scope: string;
  key: string;
  /** From `IdempotencyStore.arrive`, taken when the request's headers were read. */
  ticket: number;
}

/** Makes the tag a change carries so its answer is remembered with it; undefined without a key. */
export type TagFor = (answer: Omit<IdempotentAnswer, 'body'>) => IdempotencyTag | undefined;

/**
 * Runs `carryOut` once per key: `body` is the validated request body (compared as a JSON value),
 * `carryOut` commits the change with the tag `tagFor` makes and returns the answer.
 */
export async function runIdempotent(
  store: IdempotencyStore,
  request: IdempotencyRequest | undefined,
  body: unknown,
  nowMs: number,
  carryOut: (tagFor: TagFor) => Promise<IdempotentAnswer>,
): Promise<Answer> {
  if (request === undefined) return toAnswer(await carryOut(() => undefined), false);
  const fingerprint = bodyFingerprint(body);
  const found = store.lookup(request.scope, request.key, fingerprint, request.ticket);
  switch (found.kind) {
    case 'replay':
      return toAnswer(found.answer, true);
    case 'different_body':
      throw new ApiError(
        'conflict',
        `Idempotency-Key "${request.key}" was already used with a different request body; use a new key for a new request`,
      );
    case 'in_flight':
      throw new ApiError(
        'conflict',
        `A request with Idempotency-Key "${request.key}" is still in progress; retry once it has been answered`,
      );
    case 'new':
      break;
  }
  // Later arrivals with this key stay "in flight" until the dispatcher lets this request leave, after its answer.
  const { scope, key } = request;
  const tagFor: TagFor = ({ status, location }) => ({
    scope,
    key,
    fingerprint,
    status,
    location,
    expiresAtMs: nowMs + IDEMPOTENCY_TTL_MS,
  });
  return toAnswer(await carryOut(tagFor), false);
}

function toAnswer(answer: IdempotentAnswer, replayed: boolean): Answer {
  const headers: Record<string, string> = { location: answer.location };
  if (replayed) headers['idempotent-replayed'] = 'true';
  return { status: answer.status, body: answer.body, headers };
}
