// The backup file: a versioned, self-checking copy of a data directory's files. Layout:
//
//   animal-store backup 1\n
//   {"createdAt":"…","files":[{"name":"animals.log","bytes":N,"sha256":"…"},…]}\n
//   the bytes of each file, in the header's order
//   sha256 <hex of every byte above>\n
//
// A file cut short, a flipped byte, an unknown version or a file name that is not one of the data
// directory's is refused when the backup is read, naming what is wrong. Pure: bytes in, bytes out.
import { createHash } from 'node:crypto';

/** The first line of every backup; the number is the format's version. */
const MAGIC = 'animal-store backup 1\n';
/** The files a backup may hold: the journal, the keys, the cursor secret, the saved rate-limit state. */
export const BACKUP_FILES = ['animals.log', 'keys.json', 'cursor.secret', 'limits.json'] as const;
export type BackupFileName = (typeof BACKUP_FILES)[number];

/** One file of a backup. */
export interface BackupFile {
  name: BackupFileName;
  bytes: Buffer;
}

/** A backup's content. */
export interface Backup {
  createdAt: string;
  files: BackupFile[];
}

/** A backup that cannot be used, and why. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

interface Header {
  createdAt: string;
  files: Array<{ name: string; bytes: number; sha256: string }>;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The bytes of a backup. */
export function encodeBackup(backup: Backup): Buffer {
  const header: Header = {
    createdAt: backup.createdAt,
    files: backup.files.map((file) => ({ name: file.name, bytes: file.bytes.length, sha256: sha256(file.bytes) })),
  };
  const body = Buffer.concat([
    Buffer.from(MAGIC),
    Buffer.from(`${JSON.stringify(header)}\n`),
    ...backup.files.map((file) => file.bytes),
  ]);
  return Buffer.concat([body, Buffer.from(`sha256 ${sha256(body)}\n`)]);
}

/** Reads a backup's bytes; throws BackupError saying what is wrong with them. */
export function decodeBackup(bytes: Buffer): Backup {
  if (bytes.length < MAGIC.length || !bytes.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) {
    // Enough of the first line to show the version it names (the prefix alone is 20 bytes).
    const firstLine = bytes.subarray(0, 40).toString('latin1').split('\n')[0] ?? '';
    throw new BackupError(
      firstLine.startsWith('animal-store backup ')
        ? `it is a backup of another format version (${JSON.stringify(firstLine)}); use the release that wrote it`
        : 'it is not an animal-store backup (its first line is not "animal-store backup 1")',
    );
  }
  // The trailer: the last line, "sha256 <64 hex digits>".
  const trailerLength = 'sha256 '.length + 64 + 1;
  if (bytes.length < MAGIC.length + trailerLength || bytes[bytes.length - 1] !== 0x0a)
    throw new BackupError('it is cut short: its checksum line is missing');
  const body = bytes.subarray(0, bytes.length - trailerLength);
  const trailer = bytes.subarray(bytes.length - trailerLength).toString('latin1');
  if (!/^sha256 [0-9a-f]{64}\n$/.test(trailer)) throw new BackupError('it is cut short: its checksum line is missing');
  if (trailer.slice(7, 71) !== sha256(body))
    throw new BackupError('its checksum does not match its content: it was damaged or cut short after it was written');
  const headerEnd = body.indexOf(0x0a, MAGIC.length);
  if (headerEnd === -1) throw new BackupError('its header line is missing');
  let header: Header;
  try {
    header = JSON.parse(body.toString('utf8', MAGIC.length, headerEnd)) as Header;
  } catch {
    throw new BackupError('its header is not valid JSON');
  }
  if (typeof header.createdAt !== 'string' || !Array.isArray(header.files))
    throw new BackupError('its header is incomplete');
  const files: BackupFile[] = [];
  let offset = headerEnd + 1;
  for (const entry of header.files) {
    if (!(BACKUP_FILES as readonly string[]).includes(entry.name))
      throw new BackupError(`it holds a file no data directory has: ${JSON.stringify(entry.name)}`);
    if (!Number.isSafeInteger(entry.bytes) || entry.bytes < 0 || offset + entry.bytes > body.length)
      throw new BackupError(`its file ${entry.name} is cut short`);
    const content = body.subarray(offset, offset + entry.bytes);
    if (sha256(content) !== entry.sha256) throw new BackupError(`its file ${entry.name} does not match its checksum`);
    files.push({ name: entry.name as BackupFileName, bytes: Buffer.from(content) });
    offset += entry.bytes;
  }
  if (offset !== body.length) throw new BackupError('it has bytes after its last file');
  return { createdAt: header.createdAt, files };
}
