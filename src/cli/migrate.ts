// `animal-store migrate --data-dir DIR --database-url URL`: copies an embedded store into an empty
// PostgreSQL database, for a move from one instance to many. Everything is kept: pets, orders and ids
// (the sequences continue after the highest id the directory ever handed out), the remembered
// Idempotency-Key answers still alive, the keys (hashes), the cursor secret, and the events, webhook
// subscriptions (secrets included), pending deliveries and attempts, so that clients' cursors and
// retries go on working, event ids stay the same and deliveries continue where they stopped. It runs in one transaction, checks the counts before COMMIT, and
// refuses a database that already holds data: nothing is merged or overwritten.
import { resolve } from 'node:path';
import { describeBackends } from '../app/describe-backends.js';
import { moveToPostgres } from '../app/move-to-postgres.js';
import { NoStoreError } from '../app/no-store-error.js';
import { SETTINGS } from '../config/setting-table.js';
import { parseSettingText } from '../config/setting-text.js';
import { systemClock } from '../core/clock.js';
import { EXIT_CODES_HELP, parseCommandArgs } from './flags.js';
import { asUsage, dataDirUsageError, UsageError } from './usage-error.js';

export const MIGRATE_HELP = `Usage: animal-store migrate --data-dir DIR --database-url URL

Copies the embedded store in DIR (pets, orders, ids, remembered Idempotency-Key answers, API keys, the
cursor secret, events, webhook subscriptions with their secrets, pending deliveries and attempts) into
the PostgreSQL database at URL, in one transaction, and checks the counts.
The database must hold no animal-store data yet; its schema is created. Stop the service on DIR
first: the directory's lock is taken while copying. DIR itself is left as it was.

Options:
  --data-dir DIR       The embedded store to copy (default ANIMAL_STORE_DATA_DIR, then ./data).
  --database-url URL   The PostgreSQL database to copy into (default ANIMAL_STORE_DATABASE_URL).
  -h, --help           Show this help.

Example:
  animal-store migrate --data-dir ./data --database-url postgres://animals@db.internal:5432/animals

${EXIT_CODES_HELP}
`;

/** Runs the migrate command; prints a summary to stdout. */
export async function runMigrate(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const { values } = parseCommandArgs(
    argv,
    { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' } },
    'animal-store migrate',
    false,
  );
  if (values.help === true) return print(MIGRATE_HELP);
  const dataDir = values['data-dir'] ?? env.ANIMAL_STORE_DATA_DIR ?? './data';
  // An empty variable is as good as none (a shell's `VAR= command`).
  const databaseUrl = values['database-url'] ?? (env.ANIMAL_STORE_DATABASE_URL || undefined);
  if (databaseUrl === undefined)
    throw new UsageError(
      'migrate needs --database-url postgres://… (the database to copy into; see animal-store migrate --help)',
    );
  const urlSetting = SETTINGS.find((setting) => 'option' in setting && setting.option === 'databaseUrl');
  if (urlSetting !== undefined)
    asUsage(() => parseSettingText(urlSetting, databaseUrl, '--database-url'), 'animal-store migrate');
  const copied = await moveToPostgres({
    dataDir,
    databaseUrl,
    clock: systemClock,
    warn: (line) => process.stderr.write(`animal-store migrate: ${line}\n`),
  }).catch((error: unknown) => {
    if (error instanceof NoStoreError) throw new Error(`${error.message}; pass the --data-dir the service uses`);
    throw dataDirUsageError(error, dataDir) ?? error;
  });
  print(
    `Copied ${copied.pets} pets, ${copied.orders} orders, ${copied.answers} remembered answers and ${copied.keys} keys ` +
      `(with ${copied.events} events, ${copied.subscriptions} webhook subscriptions, ${copied.deliveries} pending ` +
      `deliveries and ${copied.attempts} attempts) from ${resolve(dataDir)} into ${describeBackends({ databaseUrl }).dataPlace}; the counts match.\n` +
      `Start the service with --database-url; ${resolve(dataDir)} was left as it was.\n`,
  );
}
