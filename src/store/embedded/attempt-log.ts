// The attempts of one subscription, as `GET /webhooks/{id}/attempts` lists them: newest first, at most
// the newest 1,000 (older ones are forgotten), and none of an event that is no longer retained.
import { eventId } from '../../events/event-id.js';
import type { DeliveredEventType } from '../../events/event.js';
import { type AttemptFacts, attemptJson } from '../attempt-json.js';
import type { Page } from '../store.js';

/** Attempts kept per subscription; older ones are forgotten (docs/events.md). */
export const MAX_ATTEMPTS_KEPT = 1000;

/**
 * An attempt as kept in memory, with its place in the order of attempts and the position of its event
 * (which decides how long it is kept): its facts, rendered into JSON only when it is listed
 * (attempt-json.ts), or the JSON that the records of earlier releases hold.
 */
export type LoggedAttempt = AttemptKeptAsFacts | AttemptKeptAsJson;

/** An attempt recorded by its facts. */
export interface AttemptKeptAsFacts extends AttemptFacts {
  readonly seq: number;
  readonly eventSeq: number;
  readonly type: DeliveredEventType;
  readonly delivered: boolean;
  readonly nextAttemptAtMs: number | null;
}

/** An attempt as the records of earlier releases hold it: rendered. */
export interface AttemptKeptAsJson {
  readonly seq: number;
  readonly eventSeq: number;
  readonly id: string;
  readonly json: string;
}

/** The JSON `attempt` is listed with; `letters` are the store's (eventIdLetters of its cursor secret). */
export function renderedAttempt(letters: string, attempt: LoggedAttempt): string {
  if ('json' in attempt) return attempt.json;
  const event = { id: eventId(letters, attempt.eventSeq), type: attempt.type };
  return attemptJson(attempt, event, attempt.delivered, attempt.nextAttemptAtMs);
}

/** One subscription's attempts, oldest first in memory. */
export class AttemptLog {
  #attempts: LoggedAttempt[] = [];

  get size(): number {
    return this.#attempts.length;
  }

  /** Keeps an attempt (seqs grow as attempts are recorded), forgetting the oldest beyond the limit. */
  add(attempt: LoggedAttempt): void {
    const attempts = this.#attempts;
    let index = attempts.length;
    while (index > 0 && (attempts[index - 1] as LoggedAttempt).seq > attempt.seq) index--;
    attempts.splice(index, 0, attempt);
    if (attempts.length > MAX_ATTEMPTS_KEPT) attempts.splice(0, attempts.length - MAX_ATTEMPTS_KEPT);
  }

  /** Up to `limit` attempts before `beforeSeq` (undefined: from the newest), newest first. */
  page(beforeSeq: number | undefined, limit: number): Page<LoggedAttempt> {
    const attempts = this.#attempts;
    let index = attempts.length - 1;
    if (beforeSeq !== undefined) while (index >= 0 && (attempts[index] as LoggedAttempt).seq >= beforeSeq) index--;
    const items: LoggedAttempt[] = [];
    for (; index >= 0 && items.length < limit; index--) items.push(attempts[index] as LoggedAttempt);
    return { items, more: index >= 0, total: attempts.length };
  }

  /** Forgets the attempts of events before `eventSeq`; how many. */
  dropBefore(eventSeq: number): number {
    const before = this.#attempts.length;
    this.#attempts = this.#attempts.filter((attempt) => attempt.eventSeq >= eventSeq);
    return before - this.#attempts.length;
  }

  /** Every attempt kept, oldest first. */
  values(): readonly LoggedAttempt[] {
    return this.#attempts;
  }
}
