// The attempts of one subscription, as `GET /webhooks/{id}/attempts` lists them: newest first, at most
// the newest 1,000 (older ones are forgotten), and none of an event that is no longer retained.
import { eventId } from '../../events/event-id.js';
import type { DeliveredEventType } from '../../events/event.js';
import { type AttemptFacts, attemptJson } from '../attempt-json.js';
import type { Page } from '../store.js';
import type { AttemptPosition } from '../webhook-store.js';

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
  /** The next attempt's time that a disable took back (endSchedules), kept in case it was under way. */
  readonly droppedNextAttemptAtMs?: number;
}

/** An attempt as the records of earlier releases hold it: rendered, with its time read from the JSON. */
export interface AttemptKeptAsJson {
  readonly seq: number;
  readonly eventSeq: number;
  readonly id: string;
  readonly attemptedAtMs: number;
  readonly json: string;
}

/** Whether `a` is listed after `b` (is older), in the order of AttemptPosition. */
function isOlder(a: LoggedAttempt, atMs: number, seq: number): boolean {
  return a.attemptedAtMs < atMs || (a.attemptedAtMs === atMs && a.seq < seq);
}

/** The JSON `attempt` is listed with; `letters` are the store's (eventIdLetters of its cursor secret). */
export function renderedAttempt(letters: string, attempt: LoggedAttempt): string {
  if ('json' in attempt) return attempt.json;
  const event = { id: eventId(letters, attempt.eventSeq), type: attempt.type };
  return attemptJson(attempt, event, attempt.delivered, attempt.nextAttemptAtMs);
}

/** The index of the attempt recorded first (the lowest seq); the log is kept in time order, so it is searched. */
function earliestRecorded(attempts: readonly LoggedAttempt[]): number {
  let earliest = 0;
  for (let index = 1; index < attempts.length; index++)
    if ((attempts[index] as LoggedAttempt).seq < (attempts[earliest] as LoggedAttempt).seq) earliest = index;
  return earliest;
}

/** One subscription's attempts, oldest first in memory (AttemptPosition's order). */
export class AttemptLog {
  #attempts: LoggedAttempt[] = [];

  get size(): number {
    return this.#attempts.length;
  }

  /**
   * Keeps an attempt in its place (most often the last: attempts are recorded about when they are made),
   * forgetting the ones recorded longest ago beyond the limit, as PostgreSQL does.
   */
  add(attempt: LoggedAttempt): void {
    const attempts = this.#attempts;
    let index = attempts.length;
    while (index > 0 && !isOlder(attempts[index - 1] as LoggedAttempt, attempt.attemptedAtMs, attempt.seq)) index--;
    attempts.splice(index, 0, attempt);
    while (attempts.length > MAX_ATTEMPTS_KEPT) attempts.splice(earliestRecorded(attempts), 1);
  }

  /** Up to `limit` attempts after `before` (undefined: from the newest), newest first. */
  page(before: AttemptPosition | undefined, limit: number): Page<LoggedAttempt> {
    const attempts = this.#attempts;
    let index = attempts.length - 1;
    if (before !== undefined) {
      // A position of an earlier release names an attempt by its seq alone; one forgotten since ends the listing.
      const atMs = before.atMs ?? attempts.find((attempt) => attempt.seq === before.seq)?.attemptedAtMs;
      if (atMs === undefined) index = -1;
      else while (index >= 0 && !isOlder(attempts[index] as LoggedAttempt, atMs, before.seq)) index--;
    }
    const items: LoggedAttempt[] = [];
    for (; index >= 0 && items.length < limit; index--) items.push(attempts[index] as LoggedAttempt);
    return { items, more: index >= 0, total: attempts.length };
  }

  /**
   * Shows no next attempt on the newest attempt of each event whose pending delivery is being dropped
   * (`isPending`), so that a listing never announces a retry that will not be made.
   */
  endSchedules(isPending: (eventSeq: number) => boolean): void {
    const attempts = this.#attempts;
    const seen = new Set<number>();
    for (let index = attempts.length - 1; index >= 0; index--) {
      const attempt = attempts[index] as LoggedAttempt;
      if (seen.has(attempt.eventSeq)) continue;
      seen.add(attempt.eventSeq);
      if ('json' in attempt || attempt.nextAttemptAtMs === null || !isPending(attempt.eventSeq)) continue;
      // Attempts are immutable items (a compaction's snapshot holds them): the ended one is a copy.
      attempts[index] = { ...attempt, nextAttemptAtMs: null, droppedNextAttemptAtMs: attempt.nextAttemptAtMs };
    }
  }

  /**
   * Gives the newest attempt of `eventSeq` back the next attempt's time that a disable took from it:
   * the attempt recorded now on the dropped delivery shows that next attempt was made, being under way
   * at the disable.
   */
  resumeSchedule(eventSeq: number): void {
    const attempts = this.#attempts;
    for (let index = attempts.length - 1; index >= 0; index--) {
      const attempt = attempts[index] as LoggedAttempt;
      if (attempt.eventSeq !== eventSeq) continue;
      if ('json' in attempt || attempt.droppedNextAttemptAtMs === undefined) return;
      const { droppedNextAttemptAtMs, ...kept } = attempt;
      attempts[index] = { ...kept, nextAttemptAtMs: droppedNextAttemptAtMs };
      return;
    }
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
