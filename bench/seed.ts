// Data for the scenarios. A local store is seeded by writing its log directly, in the service's own
// record framing (encodeRecord) and pet record format (`{"op":"pet","pet":PET}`, as the store writes
// on a create), so a million pets take a second or two to generate instead of a minute of POSTs.
// A deployment (--url) is seeded over HTTP, and only when asked to (--pets).
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRecord } from '../src/journal/log-format.js';

/** The log file name of a data directory (src/journal/open-journal.ts DEFAULT_LOG_FILE). */
export const LOG_FILE = 'animals.log';
/** Records are written in chunks of about this many bytes: one write call per megabyte. */
const WRITE_CHUNK_BYTES = 1 << 20;
const NAMES = [
  'Rex',
  'Bella',
  'Milo',
  'Luna',
  'Max',
  'Coco',
  'Oscar',
  'Nala',
  'Simba',
  'Kiwi',
  'Pepper',
  'Biscuit',
] as const;

/** A pet's status in generated data: 60 % available, 20 % pending, 20 % sold, spread evenly over ids. */
function statusOf(id: number): 'available' | 'pending' | 'sold' {
  const slot = id % 5;
  return slot < 3 ? 'available' : slot === 3 ? 'pending' : 'sold';
}

/** The JSON of generated pet `id`, in the service's key order (README "How the API behaves": id, name, categoryId, status). */
export function seedPetJson(id: number): string {
  return `{"id":${id},"name":"${NAMES[id % NAMES.length]} ${id}","categoryId":${1 + (id % 20)},"status":"${statusOf(id)}"}`;
}

/** The log record of generated pet `id`, framing included (newline-terminated). */
export function seedRecord(id: number): string {
  return encodeRecord(`{"op":"pet","pet":${seedPetJson(id)}}`);
}

/** Writes a log of pets 1..count into `dataDir` (which must not hold one yet); resolves with its size in bytes. */
export async function writeSeedLog(dataDir: string, count: number): Promise<number> {
  const file = await open(join(dataDir, LOG_FILE), 'wx', 0o600);
  let bytes = 0;
  try {
    let chunk = '';
    for (let id = 1; id <= count; id++) {
      chunk += seedRecord(id);
      if (chunk.length >= WRITE_CHUNK_BYTES) {
        const buffer = Buffer.from(chunk);
        await file.write(buffer);
        bytes += buffer.length;
        chunk = '';
      }
    }
    const buffer = Buffer.from(chunk);
    if (buffer.length > 0) await file.write(buffer);
    bytes += buffer.length;
    await file.sync();
  } finally {
    await file.close();
  }
  return bytes;
}
