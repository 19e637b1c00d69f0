// `animal-store backup` and `animal-store restore`: online backups of an embedded store's data directory
// (see src/backup/backup.ts for why a backup taken while the service runs is consistent).
import { resolve } from 'node:path';
import { BackupError } from '../backup/backup-format.js';
import { backupDataDir, readBackup, restoreDataDir } from '../backup/backup.js';
import { EXIT_CODES_HELP, parseCommandArgs } from './flags.js';
import { UsageError } from './usage-error.js';

export const BACKUP_HELP = `Usage: animal-store backup --data-dir DIR --out FILE
       animal-store backup --verify FILE

Writes a consistent copy of the embedded store in DIR to FILE, while the service keeps running: every
record acknowledged before the backup began, nothing torn, the keys and the cursor secret, with a
checksum. FILE is written atomically (a temporary file renamed into place). With --verify, checks a
backup (its checksum, every file, every record) without restoring it. PostgreSQL stores are backed up
with PostgreSQL's own tools (pg_dump).

Options:
  --data-dir DIR   The data directory (default ANIMAL_STORE_DATA_DIR, then ./data).
  --out FILE       Where to write the backup.
  --verify FILE    Check a backup instead of taking one.
  -h, --help       Show this help.

Example (cron: every night at 03:00, one file per weekday, so a week is kept; % is escaped in a crontab):
  0 3 * * * animal-store backup --data-dir /var/lib/animal-store --out /backups/animal-store-$(date +\\%a).backup

${EXIT_CODES_HELP}
`;

export const RESTORE_HELP = `Usage: animal-store restore --in FILE --data-dir NEW

Restores a backup into NEW, a directory that does not exist or is empty, after checking the backup
whole. Start the service with --data-dir NEW afterwards. A damaged backup or a non-empty NEW is refused
and nothing is written.

Options:
  --in FILE        The backup to restore.
  --data-dir NEW   The directory to restore into (required: restoring never picks a directory for you).
  -h, --help       Show this help.

${EXIT_CODES_HELP}
`;

/** A damaged backup: one line naming the file and what is wrong. */
function refused(path: string, error: unknown): Error {
  if (error instanceof BackupError) return new Error(`${path} cannot be used: ${error.message}`);
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new Error(`${path} does not exist`);
  return error as Error;
}

/** Runs `animal-store backup`. */
export async function runBackup(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const { values } = parseCommandArgs(
    argv,
    { 'data-dir': { type: 'string' }, out: { type: 'string' }, verify: { type: 'string' } },
    'animal-store backup',
    false,
  );
  if (values.help === true) return print(BACKUP_HELP);
  if (values.verify !== undefined) {
    if (values.out !== undefined) throw new UsageError('backup --verify checks a backup; it takes no --out');
    const path = values.verify;
    const { summary } = await readBackup(path).catch((error: unknown) => {
      throw refused(path, error);
    });
    print(
      `${path} is sound: ${summary.records} records and ${summary.files.join(', ')}, taken at ${summary.createdAt}.\n`,
    );
    return;
  }
  if (values.out === undefined)
    throw new UsageError('backup needs --out FILE (or --verify FILE; see animal-store backup --help)');
  const dataDir = values['data-dir'] ?? (env.ANIMAL_STORE_DATA_DIR || './data');
  const summary = await backupDataDir(dataDir, values.out);
  print(
    `Backed up ${summary.records} records and ${summary.files.filter((name) => name !== 'animals.log').join(', ') || 'no other file'} ` +
      `from ${resolve(dataDir)} to ${resolve(values.out)} (${summary.bytes} bytes).\n`,
  );
}

/** Runs `animal-store restore`. */
export async function runRestore(
  argv: readonly string[],
  _env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const { values } = parseCommandArgs(
    argv,
    { in: { type: 'string' }, 'data-dir': { type: 'string' } },
    'animal-store restore',
    false,
  );
  if (values.help === true) return print(RESTORE_HELP);
  if (values.in === undefined || values['data-dir'] === undefined)
    throw new UsageError('restore needs --in FILE and --data-dir NEW (see animal-store restore --help)');
  const path = values.in;
  const summary = await restoreDataDir(path, values['data-dir']).catch((error: unknown) => {
    throw refused(path, error);
  });
  print(
    `Restored ${summary.records} records and ${summary.files.filter((name) => name !== 'animals.log').join(', ') || 'no other file'} ` +
      `(taken at ${summary.createdAt}) into ${resolve(values['data-dir'])}; start the service with --data-dir ${values['data-dir']}.\n`,
  );
}
