// What a store keeps for Idempotency-Keys: remembered answers (kept in the same atomic change as what
// they created) and the claims of requests in flight, visible to every instance sharing the store.
import type { Awaitable } from '../core/awaitable.js';

/** An Idempotency-Key answer to keep with the change it belongs to; its body is the created item's JSON. */
export interface IdempotencyRecord {
  /** The API key and route the Idempotency-Key was sent to: keys are scoped by both. */
  scope: string;
  key: string;
  /** The fingerprint of the request body, so a repeat with another body is told apart. */
  fingerprint: string;
  /** The status the request was answered with, which a repeat is answered with again. */
  status: number;
  /** Wall-clock end of the record's life, in ms since the epoch. */
  expiresAtMs: number;
}

/** A remembered answer: what a repeat of the request gets again. */
export interface RememberedAnswer {
  fingerprint: string;
  status: number;
  body: string;
  expiresAtMs: number;
}

/**
 * The Idempotency-Key answers a store remembers, and the claims of requests now in flight: a claim is
 * visible to every instance sharing the store, so a repeat sent to another instance meanwhile is told.
 */
export interface IdempotencyTable {
  /**
   * Claims `(scope, key)` for the request `claimant` (a token unique to it) until it releases the claim
   * or `untilMs` (wall clock) passes, so that a claim of an instance that died does not last forever.
   * False when another request holds a claim that is still alive at `nowMs`.
   */
  claim(scope: string, key: string, claimant: string, nowMs: number, untilMs: number): Awaitable<boolean>;
  /**
   * Moves the end of a claim this claimant still holds to `untilMs`; nothing when it holds none (the
   * claim was released meanwhile, so a late renewal cannot take the key again). Absent on a table
   * whose claims do not lapse (those of one process, which end with it).
   */
  renew?(scope: string, key: string, claimant: string, untilMs: number): Awaitable<void>;
  /** Releases a claim this claimant holds; nothing otherwise. */
  release(scope: string, key: string, claimant: string): Awaitable<void>;
  /** The remembered answer of `(scope, key)`, unless there is none or it expired before `nowMs`. */
  find(scope: string, key: string, nowMs: number): Awaitable<RememberedAnswer | undefined>;
}
