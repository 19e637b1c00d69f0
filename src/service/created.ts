// What a creating operation answers: the item it created, or the remembered answer of an earlier
// request with the same Idempotency-Key (whose body is the item that request created).
import type { Outcome } from '../idempotency/idempotency.js';

/** Something created, or remembered from an earlier request. */
export interface Created {
  id: number;
  json: string;
  /** True when this is the remembered answer of an earlier request (nothing was created now). */
  replayed: boolean;
}

/** The Created of an idempotent run's outcome. */
export function createdOf(outcome: Outcome<{ id: number; json: string }>): Created {
  if (!outcome.replayed) return { id: outcome.item.id, json: outcome.item.json, replayed: false };
  return { id: (JSON.parse(outcome.body) as { id: number }).id, json: outcome.body, replayed: true };
}
