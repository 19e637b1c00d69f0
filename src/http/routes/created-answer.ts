// The answer of a creating POST: 201 with the item and its `Location`. A replay under an Idempotency-Key
// is the same answer, built from the remembered item; the dispatcher marks it (src/http/idempotency-key.ts).
import type { Created } from '../../service/created.js';
import type { Answer } from '../route.js';

/** The status of a creation (RFC 9110 §15.3.2). */
export const CREATED_STATUS = 201;

/** The answer for `created`, an item of the collection at `collectionPath` (e.g. "/v1/pets"). */
export function createdAnswer(created: Created, collectionPath: string): Answer {
  return { status: CREATED_STATUS, body: created.json, headers: { location: `${collectionPath}/${created.id}` } };
}
