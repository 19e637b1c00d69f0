// Where API keys are kept: the seam between the key operations and a store's table of keys (the keys
// file of a data directory, the api_keys table of PostgreSQL, an array in memory). Records only: a key
// itself is shown once when it is made and never kept.
import type { ApiKey } from './api-key.js';

/** The API keys a store keeps: records with hashes only, never keys. */
export interface KeyTable {
  /** Every key, revoked ones included, in creation order. */
  list(): Promise<ApiKey[]>;
  /** Adds a new key; its id must not be in use. */
  add(record: ApiKey): Promise<void>;
  /**
   * Adds `record` unless some stored key is active, as one step: instances starting at once on an empty
   * store make one first key between them, not one each. True when it was added.
   */
  addIfNoneActive(record: ApiKey): Promise<boolean>;
  /** Marks key `id` revoked at `revokedAt` (ISO time) unless it already is; the key as it is now, or undefined if there is no such key. */
  revoke(id: string, revokedAt: string): Promise<ApiKey | undefined>;
  /**
   * Calls `onChange` soon after the keys may have changed (another process created or revoked one);
   * `onFailure` once if that can no longer be noticed. Returns a function that stops watching.
   */
  watch(onChange: () => void, onFailure: (reason: string) => void): () => void;
}
