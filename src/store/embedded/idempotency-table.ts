// The embedded store's idempotency table: answers remembered for 24 hours of wall-clock time, which
// arrive with the change they belong to (so a crash cannot separate them), and the claims of requests
// now in flight. One process owns the data directory, so claims live in its memory only.
import type { IdempotencyRecord, IdempotencyTable, RememberedAnswer } from '../store.js';

/** Expired entries are swept once per this many new ones, so memory follows the last 24 hours. */
const SWEEP_EVERY_ENTRIES = 1024;

/** One remembered answer with where it belongs: what the journal holds and a compaction keeps. */
export interface IdempotencyEntry extends IdempotencyRecord {
  body: string;
}

/** Remembered answers and in-flight claims, in memory. */
export class MemoryIdempotencyTable implements IdempotencyTable {
  readonly #entries = new Map<string, IdempotencyEntry>();
  /** `scope \n key` → the claimant holding it. No lease: a claim of this process ends with it. */
  readonly #claims = new Map<string, string>();
  #addedSinceSweep = 0;

  claim(scope: string, key: string, claimant: string): boolean {
    const id = `${scope}\n${key}`;
    const holder = this.#claims.get(id);
    if (holder !== undefined && holder !== claimant) return false;
    this.#claims.set(id, claimant);
    return true;
  }

  release(scope: string, key: string, claimant: string): void {
    const id = `${scope}\n${key}`;
    if (this.#claims.get(id) === claimant) this.#claims.delete(id);
  }

  find(scope: string, key: string, nowMs: number): RememberedAnswer | undefined {
    const id = `${scope}\n${key}`;
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs <= nowMs) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry;
  }

  /** Keeps an entry (from a committed change or a replayed record) unless it expired before `nowMs`. */
  remember(entry: IdempotencyEntry, nowMs: number): void {
    if (entry.expiresAtMs <= nowMs) return;
    this.#entries.set(`${entry.scope}\n${entry.key}`, entry);
    if (++this.#addedSinceSweep >= SWEEP_EVERY_ENTRIES) this.sweep(nowMs);
  }

  /** Drops every entry expired before `nowMs`. */
  sweep(nowMs: number): void {
    this.#addedSinceSweep = 0;
    for (const [id, entry] of this.#entries) if (entry.expiresAtMs <= nowMs) this.#entries.delete(id);
  }

  /** The entries alive at `nowMs`: what a compaction keeps. */
  *live(nowMs: number): Generator<IdempotencyEntry> {
    for (const entry of this.#entries.values()) if (entry.expiresAtMs > nowMs) yield entry;
  }

  /** Entries held, expired ones not yet swept included. */
  get size(): number {
    return this.#entries.size;
  }
}
