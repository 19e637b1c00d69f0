// Every key the service accepts, by hash: those of the keys file, of ANIMAL_STORE_KEYS and of the
// library options. Authentication is one Map lookup; the file can be reloaded while serving.
import type { ApiKey } from './api-key.js';
import type { KeyLookup } from './authorization.js';

/** The set of configured keys. */
export class KeyRing implements KeyLookup {
  #fileKeys: readonly ApiKey[] = [];
  readonly #fixedKeys: readonly ApiKey[];
  #byHash = new Map<string, ApiKey>();

  /** `fixedKeys` come from the environment or options and never change; file keys come and go. */
  constructor(fixedKeys: readonly ApiKey[] = [], fileKeys: readonly ApiKey[] = []) {
    this.#fixedKeys = fixedKeys;
    this.replaceFileKeys(fileKeys);
  }

  findByHash(hash: string): ApiKey | undefined {
    return this.#byHash.get(hash);
  }

  /** Swaps in a new reading of the keys file. */
  replaceFileKeys(fileKeys: readonly ApiKey[]): void {
    this.#fileKeys = fileKeys;
    const byHash = new Map<string, ApiKey>();
    // Fixed keys win over a file entry with the same hash: the operator's explicit configuration.
    for (const key of [...fileKeys, ...this.#fixedKeys]) byHash.set(key.hash, key);
    this.#byHash = byHash;
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
