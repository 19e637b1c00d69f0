// Remembered answers of POSTs sent with an Idempotency-Key (CONTRACT.md section 9), per API key and
// route, for 24 hours of wall-clock time. Entries arrive with the change they belong to (state/) so a
// crash cannot separate them; this class only keeps them and answers lookups.
import type { Clock } from '../clock.js';

/** How long an answer is remembered: 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** Expired entries are swept once per this many new ones, so memory follows the last 24 hours. */
const SWEEP_EVERY_ENTRIES = 1024;

/** A remembered answer: what a retry gets again. */
export interface IdempotentAnswer {
  status: number;
  body: string;
  location: string;
}

/** One remembered request: where it was sent, with which key, the fingerprint of its body, its answer. */
export interface IdempotencyEntry extends IdempotentAnswer {
  /** `<api key id> <method> <route template>`: keys are scoped per API key and per route. */
  scope: string;
  key: string;
  fingerprint: string;
  expiresAtMs: number;
}

/** What a lookup finds. */
export type IdempotencyLookup =
  { kind: 'new' } | { kind: 'replay'; answer: IdempotentAnswer } | { kind: 'different_body' } | { kind: 'in_flight' };

/** The remembered entries and the requests in flight. */
export class IdempotencyStore {
  readonly #clock: Clock;
  readonly #entries = new Map<string, IdempotencyEntry>();
  /**
   * Requests with a key that have arrived (headers read) and not yet been answered, oldest first, as
   * tickets: "in flight" covers the time a body is still arriving, not only the time it is carried out.
   */
  readonly #arrivals = new Map<string, number[]>();
  #lastTicket = 0;
  #addedSinceSweep = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * What a request with `key` on `scope` and a body of `fingerprint` should get. `ticket` is its own
   * arrival: an earlier request with the key that is still unanswered makes it `in_flight`.
   */
  lookup(scope: string, key: string, fingerprint: string, ticket?: number): IdempotencyLookup {
    const id = `${scope}\n${key}`;
    const arrivals = this.#arrivals.get(id);
    if (arrivals !== undefined && arrivals[0] !== ticket) return { kind: 'in_flight' };
    const entry = this.#entries.get(id);
    if (entry === undefined) return { kind: 'new' };
    if (entry.expiresAtMs <= this.#clock.now()) {
      this.#entries.delete(id);
      return { kind: 'new' };
    }
    return entry.fingerprint === fingerprint ? { kind: 'replay', answer: entry } : { kind: 'different_body' };
  }

  /**
   * Notes a request with `key` on `scope` as arrived, before its body is read; `leave` must be called
   * once it is answered. Until then, a later request with the same key finds it in flight.
   */
  arrive(scope: string, key: string): { ticket: number; leave(): void } {
    const id = `${scope}\n${key}`;
    const ticket = ++this.#lastTicket;
    const arrivals = this.#arrivals.get(id);
    if (arrivals === undefined) this.#arrivals.set(id, [ticket]);
    else arrivals.push(ticket);
    return {
      ticket,
      leave: () => {
        const current = this.#arrivals.get(id);
        if (current === undefined) return;
        const index = current.indexOf(ticket);
        if (index >= 0) current.splice(index, 1);
        if (current.length === 0) this.#arrivals.delete(id);
      },
    };
  }

  /** Keeps an entry (from a committed change or a replayed record) unless it has expired. */
  remember(entry: IdempotencyEntry): void {
    if (entry.expiresAtMs <= this.#clock.now()) return;
    this.#entries.set(`${entry.scope}\n${entry.key}`, entry);
    if (++this.#addedSinceSweep >= SWEEP_EVERY_ENTRIES) this.sweep();
  }

  /** Drops every expired entry. */
  sweep(): void {
    this.#addedSinceSweep = 0;
    const now = this.#clock.now();
    for (const [id, entry] of this.#entries) if (entry.expiresAtMs <= now) this.#entries.delete(id);
  }

  /** The entries that have not expired: what a compaction keeps. */
  *live(): Generator<IdempotencyEntry> {
    const now = this.#clock.now();
    for (const entry of this.#entries.values()) if (entry.expiresAtMs > now) yield entry;
  }

  get size(): number {
    return this.#entries.size;
  }
}
