// `animal-store keys create|list|revoke|check`: key management on the keys file of a data directory, or
// on the keys table of a PostgreSQL store (--database-url). A running service on the same directory or
// database picks changes up within a second.
import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ApiKey } from '../auth/api-key.js';
import { systemClock } from '../clock.js';
import { KeyProblem, KeyService } from '../service/key-service.js';
import { parseSettingText, SETTINGS } from '../config.js';
import { FileKeyTable, KEYS_FILE } from '../store/embedded/key-file.js';
import { describeDatabase } from '../store/postgres/faults.js';
import type { KeyTable } from '../store/store.js';
import { nodeFs } from '../storage/node-fs.js';
import { DATA_DIR_MODE, DEFAULT_LOG_FILE } from '../storage/open-journal.js';
import { parseCommandArgs, unknownCommand, EXIT_CODES_HELP } from './flags.js';
import { asUsage, dataDirUsageError, UsageError } from './usage-error.js';

export const KEYS_HELP = `Usage: animal-store keys <create|list|revoke|check> [options]

  keys create --plan free|pro|business|enterprise [--per-minute N --per-day N] [--name LABEL] [--init]
      Creates a key and prints it once; only its hash is stored, in DIR/keys.json. Enterprise needs both
      numbers. A directory that holds no store yet is refused (a mistyped --data-dir) unless --init.
  keys list [--json]
      Shows id, name, plan, limits, created and revoked times (never the key).
  keys revoke ID
      Revokes a key by its id (keys list shows them; keys check - finds the id of a key you hold); a
      running service refuses it within a second. Revoking a revoked key changes nothing.
  keys check KEY | keys check -
      Says which key this is and whether it is active; exit code 1 when it is mistyped (a generated
      key's checksum or length is wrong), unknown to the keys file, or revoked. Nothing is contacted.
      With -, the key is read from standard input, so it stays out of the shell history and ps.

Every command takes --data-dir DIR (default ANIMAL_STORE_DATA_DIR, then ./data), or --database-url URL
(default ANIMAL_STORE_DATABASE_URL) for the keys of a PostgreSQL store, -h/--help and --version.

Examples:
  animal-store keys create --plan pro --name "mobile app"
  animal-store keys create --plan enterprise --per-minute 5000 --per-day 2000000 --name partner
  animal-store keys list
  animal-store keys revoke key_1a2b3c4d
  printf '%s' "$ANIMAL_STORE_KEY" | animal-store keys check -

${EXIT_CODES_HELP}
`;

function positiveInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new TypeError(`${flag} must be a positive whole number, not "${text}"`);
  return Number(text);
}

/** The flags of every keys subcommand (parseArgs infers their types from this one place). */
function parseKeysArgs(args: readonly string[]) {
  return parseCommandArgs(
    args,
    {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      plan: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      init: { type: 'boolean' },
    },
    'animal-store keys',
    true,
  );
}

const KEYS_COMMANDS = ['create', 'list', 'revoke', 'check'] as const;

/** A key id as `keys create` makes them. */
const KEY_ID = /^key_[0-9a-f]{8}$/;

/** Runs a keys subcommand; prints to stdout. */
export async function runKeys(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    print(KEYS_HELP);
    return;
  }
  const { values, positionals } = parseKeysArgs(rest);
  if (values.help === true) {
    print(KEYS_HELP);
    return;
  }
  if (!(KEYS_COMMANDS as readonly string[]).includes(command))
    throw unknownCommand(command, KEYS_COMMANDS, 'animal-store keys');
  const databaseUrl =
    values['database-url'] ??
    (values['data-dir'] === undefined ? env.ANIMAL_STORE_DATABASE_URL || undefined : undefined);
  if (databaseUrl !== undefined) {
    if (values['data-dir'] !== undefined)
      throw new UsageError('keys takes --data-dir or --database-url, not both: the keys live in one of them');
    const table = await openDatabaseKeys(databaseUrl);
    try {
      await keysCommand(command, values, positionals, table, print);
    } catch (error) {
      if (error instanceof KeyProblem) throw new Error(error.message);
      throw error;
    } finally {
      await table.close();
    }
    return;
  }
  const dataDir = values['data-dir'] ?? env.ANIMAL_STORE_DATA_DIR ?? './data';
  if (!(command === 'create' && values.init === true)) await assertHoldsStore(dataDir, command);
  const where: KeysPlace = {
    table: new FileKeyTable(dataDir),
    prepare: () => nodeFs.mkdir(dataDir, DATA_DIR_MODE),
    where: resolve(dataDir, KEYS_FILE),
    name: `the keys file in ${dataDir}`,
    readers: 'a service on that directory',
    close: async () => {},
  };
  try {
    await keysCommand(command, values, positionals, where, print);
  } catch (error) {
    // A key that cannot be used, or an id that names no key: the answer, not a crash; one line, exit code 1.
    if (error instanceof KeyProblem) throw new Error(error.message);
    throw dataDirUsageError(error, dataDir) ?? error;
  }
}

/** Where the keys a command works on live. */
interface KeysPlace {
  table: KeyTable;
  /** Makes the place ready for a first key (the data directory created). */
  prepare(): Promise<void>;
  /** Where the hashes are, for people. */
  where: string;
  /** The key table as `keys check` names it: "the keys file in ./data". */
  name: string;
  /** Who picks a change up. */
  readers: string;
  close(): Promise<void>;
}

/** The keys table of the PostgreSQL store at `databaseUrl` (its schema created or brought up to date). */
async function openDatabaseKeys(databaseUrl: string): Promise<KeysPlace> {
  const source = 'the database URL (--database-url or ANIMAL_STORE_DATABASE_URL)';
  const urlSetting = SETTINGS.find((setting) => 'option' in setting && setting.option === 'databaseUrl');
  if (urlSetting !== undefined) asUsage(() => parseSettingText(urlSetting, databaseUrl, source), 'animal-store keys');
  const { openPool, connectionConfig } = await import('../store/postgres/open-postgres-store.js');
  const { PostgresKeyTable } = await import('../store/postgres/key-table.js');
  const { pool } = await openPool(databaseUrl, 1);
  return {
    table: new PostgresKeyTable(pool, connectionConfig(databaseUrl)),
    prepare: async () => {},
    where: `the api_keys table of PostgreSQL at ${describeDatabase(databaseUrl)}`,
    name: `the api_keys table of PostgreSQL at ${describeDatabase(databaseUrl)}`,
    readers: 'every service on that database',
    close: () => pool.end(),
  };
}

/**
 * Refuses a data directory that holds no store (neither a keys file nor a log): a mistyped --data-dir
 * would otherwise list nothing, or get a key that no running service ever sees. `keys create --init`
 * starts a new directory on purpose.
 */
async function assertHoldsStore(dataDir: string, command: string): Promise<void> {
  const exists = (name: string): Promise<boolean> =>
    access(join(dataDir, name)).then(
      () => true,
      () => false,
    );
  const present = await Promise.all([exists(KEYS_FILE), exists(DEFAULT_LOG_FILE)]);
  if (present.includes(true)) return;
  const fix =
    command === 'create'
      ? 'pass --data-dir with the directory the service uses, or add --init to start a new one there'
      : 'pass --data-dir with the directory the service uses';
  throw new Error(`${resolve(dataDir)} holds no animal store (no ${KEYS_FILE}, no ${DEFAULT_LOG_FILE}); ${fix}`);
}

type KeysFlags = ReturnType<typeof parseKeysArgs>['values'];

async function keysCommand(
  command: string,
  values: KeysFlags,
  positionals: readonly string[],
  place: KeysPlace,
  print: (text: string) => void,
): Promise<void> {
  const keys = new KeyService(place.table, systemClock);
  switch (command) {
    case 'create': {
      if (values.plan === undefined)
        throw new UsageError('keys create needs --plan free|pro|business|enterprise (see animal-store keys --help)');
      const request = asUsage(
        () => ({
          plan: values.plan as string,
          perMinute: positiveInteger(values['per-minute'], '--per-minute'),
          perDay: positiveInteger(values['per-day'], '--per-day'),
          name: values.name,
        }),
        'animal-store keys',
      );
      await place.prepare();
      const { key, record } = await keys.create(request).catch((error: unknown) => {
        if (error instanceof TypeError) throw new UsageError(`${error.message} (see animal-store keys --help)`);
        throw error;
      });
      print(
        `Created key ${record.id} (${record.plan}: ${record.perMinute}/min, ${record.perDay}/day). It is shown only this once:\n\n  ${key}\n\n` +
          `Its hash is in ${place.where}; ${place.readers} accepts it within a second.\n`,
      );
      return;
    }
    case 'list': {
      const all = await keys.list();
      print(
        values.json === true
          ? `${JSON.stringify(
              all.map(({ hash: _hash, ...key }) => key),
              null,
              2,
            )}\n`
          : `${formatKeyTable(all)}\n`,
      );
      return;
    }
    case 'revoke': {
      const [id] = positionals;
      if (id === undefined || positionals.length > 1)
        throw new UsageError('keys revoke takes one key id (see animal-store keys list)');
      // Never echo what was given if it is not an id: it may be the secret itself.
      if (!KEY_ID.test(id)) {
        throw new UsageError(
          "keys revoke takes a key id such as key_1a2b3c4d, not the key itself; to find a key's id: printf '%s' \"$KEY\" | animal-store keys check -",
        );
      }
      const before = (await keys.list()).find((entry) => entry.id === id);
      if (before?.revokedAt != null) {
        print(`Key ${id} was already revoked at ${before.revokedAt}; nothing changed.\n`);
        return;
      }
      const revoked = await keys.revoke(id);
      print(`Revoked key ${revoked.id} at ${revoked.revokedAt}.\n`);
      return;
    }
    case 'check': {
      const [given] = positionals;
      if (given === undefined || positionals.length > 1)
        throw new UsageError(
          'keys check takes one key, or - to read it from standard input (see animal-store keys --help)',
        );
      const found = await keys.check(given === '-' ? (await readStdin()).trim() : given, place.name);
      print(
        `Key ${found.id}${found.name === '' ? '' : ` (${found.name})`} is active: ${found.plan}, ${found.perMinute}/min, ${found.perDay}/day.\n`,
      );
      return;
    }
    default:
      throw unknownCommand(command, KEYS_COMMANDS, 'animal-store keys');
  }
}

/** The keys as a table for people: never the key, never its hash. */
export function formatKeyTable(keys: readonly ApiKey[]): string {
  const rows = [['ID', 'NAME', 'PLAN', 'PER MINUTE', 'PER DAY', 'CREATED', 'REVOKED']];
  for (const key of keys) {
    rows.push([
      key.id,
      key.name,
      key.plan,
      String(key.perMinute),
      String(key.perDay),
      key.createdAt,
      key.revokedAt ?? '-',
    ]);
  }
  const widths = (rows[0] ?? []).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
