// The key table of a store kept in memory only (the library without a data directory): keys live as
// long as the process.
import type { ApiKey } from '../../keys/api-key.js';
import type { KeyTable } from '../../keys/key-table.js';

/** Keys in an array; nothing else can change them, so there is nothing to watch. */
export class MemoryKeyTable implements KeyTable {
  readonly #keys: ApiKey[] = [];

  async list(): Promise<ApiKey[]> {
    return [...this.#keys];
  }

  async add(record: ApiKey): Promise<void> {
    if (this.#keys.some((key) => key.id === record.id))
      throw new TypeError(`a key with id ${record.id} exists already`);
    this.#keys.push(record);
  }

  async addIfNoneActive(record: ApiKey): Promise<boolean> {
    if (this.#keys.some((key) => key.revokedAt === null)) return false;
    await this.add(record);
    return true;
  }

  async revoke(id: string, revokedAt: string): Promise<ApiKey | undefined> {
    const index = this.#keys.findIndex((key) => key.id === id);
    const key = this.#keys[index];
    if (key === undefined || key.revokedAt !== null) return key;
    const revoked = { ...key, revokedAt };
    this.#keys[index] = revoked;
    return revoked;
  }

  watch(): () => void {
    return () => {};
  }
}
