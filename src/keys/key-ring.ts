// Every key the service accepts, by hash: those the store keeps (the keys file, or the database's key
// table) and those given in ANIMAL_STORE_KEYS or the library options. Authentication is one Map lookup
// by SHA-256; the stored keys can be swapped while serving.
import { type ApiKey, hashKey } from './api-key.js';

/**
 * Keys recently presented, so a busy client is not hashed on every request (SHA-256 was about 2% of
 * the list route's CPU time). Only keys that authenticated are kept, so junk cannot fill it; it is
 * emptied whenever the set of keys changes, so a revoked key stops working at once.
 */
const RECENT_KEYS = 10_000;

/** The set of configured keys. */
export class KeyRing {
  readonly #fixedKeys: readonly ApiKey[];
  #byHash = new Map<string, ApiKey>();
  /** The record ids of the keys that can authenticate now. */
  #activeIds = new Set<string>();
  readonly #recent = new Map<string, ApiKey>();
  #generation = 0;

  /** `fixedKeys` come from the environment or options and never change; stored keys come and go. */
  constructor(fixedKeys: readonly ApiKey[] = [], storedKeys: readonly ApiKey[] = []) {
    this.#fixedKeys = fixedKeys;
    this.replaceStoredKeys(storedKeys);
  }

  /** The key whose value is `token`, revoked or not; undefined when no key has it. */
  findByToken(token: string): ApiKey | undefined {
    const recent = this.#recent.get(token);
    if (recent !== undefined) return recent;
    const key = this.#byHash.get(hashKey(token));
    if (key !== undefined && key.revokedAt === null) {
      if (this.#recent.size >= RECENT_KEYS) this.#recent.delete(this.#recent.keys().next().value as string);
      this.#recent.set(token, key);
    }
    return key;
  }

  /** Swaps in a new reading of the store's keys. */
  replaceStoredKeys(storedKeys: readonly ApiKey[]): void {
    const byHash = new Map<string, ApiKey>();
    // Fixed keys win over a stored entry with the same hash: the operator's explicit configuration.
    for (const key of [...storedKeys, ...this.#fixedKeys]) byHash.set(key.hash, key);
    this.#byHash = byHash;
    this.#activeIds = new Set([...byHash.values()].filter((key) => key.revokedAt === null).map((key) => key.id));
    this.#recent.clear();
    this.#generation++;
  }

  /**
   * A number that changes whenever the set of keys may have changed (a key added or revoked): a
   * caller that remembers what a token named remembers this with it, and asks again once it moves.
   */
  get generation(): number {
    return this.#generation;
  }

  /** How many keys can authenticate now (not revoked). */
  get activeCount(): number {
    return this.#activeIds.size;
  }

  /** Whether the key with record id `id` can authenticate now: a revoked key's webhooks receive nothing more. */
  isActive(id: string): boolean {
    return this.#activeIds.has(id);
  }
}
