// Every key the service accepts, by hash: those of the keys file, of ANIMAL_STORE_KEYS and of the
// library options. Authentication is one Map lookup by SHA-256; the file can be reloaded while serving.
import { type ApiKey, hashKey } from './api-key.js';
import type { KeyLookup } from './authorization.js';

/**
 * Keys recently presented, so a busy client is not hashed on every request (SHA-256 was about 2% of
 * the list route's CPU time). Only keys that authenticated are kept, so junk cannot fill it; it is
 * emptied whenever the set of keys changes, so a revoked key stops working at once.
 */
const RECENT_KEYS = 10_000;

/** The set of configured keys. */
export class KeyRing implements KeyLookup {
  #fileKeys: readonly ApiKey[] = [];
  readonly #fixedKeys: readonly ApiKey[];
  #byHash = new Map<string, ApiKey>();
  readonly #recent = new Map<string, ApiKey>();

  /** `fixedKeys` come from the environment or options and never change; file keys come and go. */
  constructor(fixedKeys: readonly ApiKey[] = [], fileKeys: readonly ApiKey[] = []) {
    this.#fixedKeys = fixedKeys;
    this.replaceFileKeys(fileKeys);
  }

  findByHash(hash: string): ApiKey | undefined {
    return this.#byHash.get(hash);
  }

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

  /** Swaps in a new reading of the keys file. */
  replaceFileKeys(fileKeys: readonly ApiKey[]): void {
    this.#fileKeys = fileKeys;
    const byHash = new Map<string, ApiKey>();
    // Fixed keys win over a file entry with the same hash: the operator's explicit configuration.
    for (const key of [...fileKeys, ...this.#fixedKeys]) byHash.set(key.hash, key);
    this.#byHash = byHash;
    this.#recent.clear();
  }

  /** How many keys can authenticate now (not revoked). */
  get activeCount(): number {
    let count = 0;
    for (const key of this.#byHash.values()) if (key.revokedAt === null) count++;
    return count;
  }

  /** The keys that came from the keys file. */
  get fileKeys(): readonly ApiKey[] {
    return this.#fileKeys;
  }
}
