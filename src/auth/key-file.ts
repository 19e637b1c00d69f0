// The keys file in the data directory: hashes only, never keys. Written atomically (temporary file,
// fsync, rename, fsync of the directory) so a crash leaves the old file or the new one, never a torn one.
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type ApiKey, PLAN_NAMES } from './api-key.js';

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
    text = await readFile(path, 'utf8');
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
  const path = join(dir, KEYS_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  const content: KeysFileContent = { version: 1, keys: [...keys] };
  const file = await open(temporary, 'w', 0o600);
  try {
    await file.writeFile(`${JSON.stringify(content, null, 2)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
}

/** fsync of a directory, so a rename in it survives a power loss (POSIX leaves it unsaid otherwise). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
