// The attempts of one subscription, as `GET /webhooks/{id}/attempts` lists them: newest first, at most
// the newest 1,000 (older ones are forgotten), and none of an event that is no longer retained.
import type { Page } from '../store.js';
import type { Attempt } from '../webhook-store.js';

/** Attempts kept per subscription; older ones are forgotten (docs/events.md). */
export const MAX_ATTEMPTS_KEPT = 1000;

/** An attempt with the position of its event, which decides how long it is kept. */
export interface LoggedAttempt extends Attempt {
  readonly eventSeq: number;
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
  page(beforeSeq: number | undefined, limit: number): Page<Attempt> {
    const attempts = this.#attempts;
    let index = attempts.length - 1;
    if (beforeSeq !== undefined) while (index >= 0 && (attempts[index] as LoggedAttempt).seq >= beforeSeq) index--;
    const items: Attempt[] = [];
    for (; index >= 0 && items.length < limit; index--) {
      const { seq, id, subscriptionId, json } = attempts[index] as LoggedAttempt;
      items.push({ seq, id, subscriptionId, json });
    }
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
