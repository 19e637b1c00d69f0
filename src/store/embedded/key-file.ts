// The keys file in the data directory, the embedded store's key table: hashes only, never keys.
// Written atomically, so a crash leaves the old file or the new one; `animal-store keys` edits it
// while a service runs, and the service notices by watching the directory.
import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../../journal/atomic-file.js';
import { readFileNamed } from '../../journal/node-fs.js';
import { type ApiKey, PLAN_NAMES } from '../../keys/api-key.js';
import type { KeyTable } from '../../keys/key-table.js';
import { KEYS_RELOAD_SIGNAL } from '../../keys/service-keys.js';

/** The file name of the keys file inside the data directory. */
export const KEYS_FILE = 'keys.json';

interface KeysFileContent {
  version: 1;
  keys: ApiKey[];
}

/** The keys stored in `dir`; none when the file does not exist. Throws, naming the file, when it is damaged. */
export async function loadKeyFile(dir: string): Promise<ApiKey[]> {
  const path = join(dir, KEYS_FILE);
  let text: string;
  try {
    text = await readFileNamed(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not valid JSON; restore it from a backup or remove it to start without keys`);
  }
  if (typeof content !== 'object' || content === null || !Array.isArray((content as KeysFileContent).keys)) {
    throw new Error(`${path} does not hold a "keys" list; restore it from a backup or remove it`);
  }
  return (content as KeysFileContent).keys.map((entry, index) => checkEntry(entry, `${path}: key ${index + 1}`));
}

function checkEntry(entry: unknown, where: string): ApiKey {
  const key = entry as Partial<ApiKey> | null;
  const fine =
    typeof key === 'object' &&
    key !== null &&
    typeof key.id === 'string' &&
    typeof key.hash === 'string' &&
    key.hash.startsWith('sha256:') &&
    typeof key.plan === 'string' &&
    PLAN_NAMES.includes(key.plan) &&
    Number.isSafeInteger(key.perMinute) &&
    (key.perMinute as number) > 0 &&
    Number.isSafeInteger(key.perDay) &&
    (key.perDay as number) > 0;
  if (!fine) throw new Error(`${where} is damaged (it needs id, hash, plan, perMinute and perDay)`);
  return {
    id: key.id as string,
    name: typeof key.name === 'string' ? key.name : '',
    plan: key.plan as ApiKey['plan'],
    perMinute: key.perMinute as number,
    perDay: key.perDay as number,
    hash: key.hash as string,
    createdAt: typeof key.createdAt === 'string' ? key.createdAt : '',
    revokedAt: typeof key.revokedAt === 'string' ? key.revokedAt : null,
  };
}

/** Replaces the keys file of `dir` with `keys`, atomically. */
export async function saveKeyFile(dir: string, keys: readonly ApiKey[]): Promise<void> {
  const content: KeysFileContent = { version: 1, keys: [...keys] };
  await writeFileAtomically(join(dir, KEYS_FILE), `${JSON.stringify(content, null, 2)}\n`, 0o600);
}

/** How long a burst of file events is let settle before the keys file is read again. */
const KEYS_RELOAD_SETTLE_MS = 50;

/** The keys file of a data directory as a key table. Writers replace the whole file; the last one wins. */
export class FileKeyTable implements KeyTable {
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  list(): Promise<ApiKey[]> {
    return loadKeyFile(this.#dir);
  }

  async add(record: ApiKey): Promise<void> {
    const keys = await loadKeyFile(this.#dir);
    if (keys.some((key) => key.id === record.id)) throw new TypeError(`a key with id ${record.id} exists already`);
    await saveKeyFile(this.#dir, [...keys, record]);
  }

  /** One process owns the data directory (its lock), so checking then adding is one step here. */
  async addIfNoneActive(record: ApiKey): Promise<boolean> {
    if ((await loadKeyFile(this.#dir)).some((key) => key.revokedAt === null)) return false;
    await this.add(record);
    return true;
  }

  async revoke(id: string, revokedAt: string): Promise<ApiKey | undefined> {
    const keys = await loadKeyFile(this.#dir);
    const index = keys.findIndex((key) => key.id === id);
    const key = keys[index];
    if (key === undefined) return undefined;
    if (key.revokedAt !== null) return key;
    const revoked = { ...key, revokedAt };
    keys[index] = revoked;
    await saveKeyFile(this.#dir, keys);
    return revoked;
  }

  /**
   * Watches the directory, not the file: `keys create` replaces the file by rename, which a watch on
   * the old inode would miss. When the directory cannot be watched (no support, inotify's limits used
   * up) or the watch fails later (the directory removed), `onFailure` says so and names the signal that
   * still reloads the file.
   */
  watch(onChange: () => void, onFailure: (reason: string) => void): () => void {
    let timer: NodeJS.Timeout | undefined;
    let watcher: FSWatcher;
    try {
      watcher = watch(this.#dir, { persistent: false }, (_event, name) => {
        if (name !== KEYS_FILE) return;
        clearTimeout(timer);
        timer = setTimeout(onChange, KEYS_RELOAD_SETTLE_MS);
        timer.unref();
      });
    } catch (error) {
      onFailure(unwatchedReason(this.#dir, error as Error));
      return () => {};
    }
    watcher.on('error', (error) => {
      watcher.close();
      onFailure(unwatchedReason(this.#dir, error));
    });
    return () => {
      clearTimeout(timer);
      watcher.close();
    };
  }
}

/** Why the keys file is no longer followed, and what reloads it now: the operator's way out. */
function unwatchedReason(dir: string, error: Error): string {
  return (
    `changes to ${join(dir, KEYS_FILE)} are no longer noticed (${error.message}); ` +
    `send ${KEYS_RELOAD_SIGNAL} to animal-store serve (or call reloadKeys()) to reload it`
  );
}
