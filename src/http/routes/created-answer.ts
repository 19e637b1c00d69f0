// The answer of a creating POST: 201 with the item and its `Location`, and `Idempotent-Replayed: true`
// when it is the remembered answer of an earlier request with the same Idempotency-Key.
import type { Created } from '../../service/created.js';
import type { Answer } from '../route.js';

/** The answer for `created`, an item of the collection at `collectionPath` (e.g. "/v1/pets"). */
export function createdAnswer(created: Created, collectionPath: string): Answer {
  const headers: Record<string, string> = { location: `${collectionPath}/${created.id}` };
  if (created.replayed) headers['idempotent-replayed'] = 'true';
  return { status: 201, body: created.json, headers };
}
