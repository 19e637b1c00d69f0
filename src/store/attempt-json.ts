// What one delivery attempt came to, and its JSON as `GET /webhooks/{id}/attempts` lists it. The worker
// hands a store the facts; a store keeps them as it likes (the embedded journal writes them as a few
// numbers, PostgreSQL a rendered column) and renders them here, so that every store answers the same
// bytes for the same attempt. Pure.
import type { DeliveredEventType } from '../events/event.js';

/** What an attempt came to, as the worker saw it. */
export interface AttemptFacts {
  /** `att_` + 26 characters. */
  readonly id: string;
  /** When it was sent, in whole ms since the epoch. */
  readonly attemptedAtMs: number;
  /** The receiver's HTTP status; null when none came (a refused connection, a timeout). */
  readonly status: number | null;
  /** Why it failed when the transport knows (a timeout, a refused connection); null otherwise. */
  readonly error: string | null;
  /** Whole ms from sending to the answer. */
  readonly durationMs: number;
  /** The start of the receiver's answer, when there was one. */
  readonly response: string | null;
}

/** The event an attempt delivered. */
export interface AttemptedEvent {
  readonly id: string;
  readonly type: DeliveredEventType;
}

/** An attempt's time from its JSON, in ms; null when it has none (records of early releases). */
export function attemptedAtOf(json: string): number | null {
  const { attemptedAt } = JSON.parse(json) as { attemptedAt: string | null };
  return attemptedAt === null ? null : Date.parse(attemptedAt);
}

/** The `error` an attempt lists: none when it delivered, else the transport's reason or the status it got. */
export function attemptError(facts: AttemptFacts, delivered: boolean): string | null {
  if (delivered) return null;
  return facts.error ?? (facts.status === null ? 'no answer' : `the receiver answered ${facts.status}`);
}

/**
 * `{"id","eventId","type","attemptedAt","status","error","durationMs","nextAttemptAt","response"}`, in
 * that key order; `nextAttemptAtMs` null when the attempt ended its delivery.
 */
export function attemptJson(
  facts: AttemptFacts,
  event: AttemptedEvent,
  delivered: boolean,
  nextAttemptAtMs: number | null,
): string {
  return JSON.stringify({
    id: facts.id,
    eventId: event.id,
    type: event.type,
    attemptedAt: new Date(facts.attemptedAtMs).toISOString(),
    status: facts.status,
    error: attemptError(facts, delivered),
    durationMs: facts.durationMs,
    nextAttemptAt: nextAttemptAtMs === null ? null : new Date(nextAttemptAtMs).toISOString(),
    response: facts.response,
  });
}
