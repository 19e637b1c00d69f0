// `animal-store keys create|list|revoke|check`: key management on the keys file of a data directory, or
// on the keys table of a PostgreSQL store (--database-url). A running service on the same directory or
// database picks changes up within a second.
import { type AdminKeyTable, openKeyTable } from '../app/key-admin.js';
import { NoStoreError } from '../app/no-store-error.js';
import { closestNames } from '../config/option-names.js';
import { SETTINGS } from '../config/setting-table.js';
import { parseSettingText } from '../config/setting-text.js';
import { systemClock } from '../core/clock.js';
import { type ApiKey, isWellFormedKey, KEY_PREFIX } from '../keys/api-key.js';
import { KeyProblem } from '../keys/key-problem.js';
import { checkNewKey, KeyService, type NewKeyRequest } from '../keys/key-service.js';
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

/** The edits that make a typed id a slip for a key's id. */
const ID_SLIP_EDITS = 2;

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
  if (databaseUrl !== undefined && values['data-dir'] !== undefined)
    throw new UsageError('keys takes --data-dir or --database-url, not both: the keys live in one of them');
  if (databaseUrl !== undefined) {
    const source = 'the database URL (--database-url or ANIMAL_STORE_DATABASE_URL)';
    const urlSetting = SETTINGS.find((setting) => 'option' in setting && setting.option === 'databaseUrl');
    if (urlSetting !== undefined) asUsage(() => parseSettingText(urlSetting, databaseUrl, source), 'animal-store keys');
  }
  // A usage mistake is one whatever the store holds: said before the store is looked at.
  const newKey = checkArguments(command, values, positionals);
  const dataDir = databaseUrl === undefined ? (values['data-dir'] ?? env.ANIMAL_STORE_DATA_DIR ?? './data') : undefined;
  const place = await openKeyTable({ databaseUrl, dataDir });
  try {
    if (!(command === 'create' && values.init === true)) await place.assertHoldsStore();
    await keysCommand(command, values, positionals, newKey, place, print);
  } catch (error) {
    // A key that cannot be used, or an id that names no key: the answer, not a crash; one line, exit code 1.
    if (error instanceof KeyProblem) throw problemError(error, place);
    if (error instanceof NoStoreError) throw new Error(`${error.message}; ${noStoreFix(command)}`);
    throw (dataDir === undefined ? undefined : dataDirUsageError(error, dataDir)) ?? error;
  } finally {
    await place.close();
  }
}

/** " ; did you mean key_…?" naming the ids `given` is probably a slip for, or nothing. */
function didYouMean(given: string, all: readonly ApiKey[]): string {
  if (!given.startsWith('key_')) return '';
  // Ids are random: two edits (a wrong digit or two, a swap, one left out) are a slip; with more, one
  // id in a few hundred would be offered for another that it merely resembles by chance.
  const close = closestNames(
    given,
    all.map((key) => key.id),
    ID_SLIP_EDITS,
  ).slice(0, 3);
  return close.length === 0 ? '' : `; did you mean ${close.join(' or ')}?`;
}

/**
 * What `keys revoke` says of an argument that is not an id. What could be a key (one of ours, or any
 * bearer token long enough) is never printed back, since it may be the secret itself; anything
 * shorter cannot be a key, and is named as the malformed id it is.
 */
function notAnId(given: string, all: readonly ApiKey[]): UsageError {
  const findId = `to find a key's id: printf '%s' "$KEY" | animal-store keys check -`;
  if (given.startsWith(KEY_PREFIX) || isWellFormedKey(given))
    return new UsageError(
      `keys revoke takes a key id such as key_1a2b3c4d, not a key; what was given is not printed back, in case it is one${didYouMean(given, all)}; ${findId}`,
    );
  return new UsageError(
    `"${given}" is not a key id: an id is key_ and 8 hex digits, such as key_1a2b3c4d${didYouMean(given, all)}; animal-store keys list shows them`,
  );
}

/** What to do about a data directory that holds no store. */
function noStoreFix(command: string): string {
  return command === 'create'
    ? 'pass --data-dir with the directory the service uses, or add --init to start a new one there'
    : 'pass --data-dir with the directory the service uses';
}

/** The flag each limit is given with. */
const LIMIT_FLAGS = { perMinute: '--per-minute', perDay: '--per-day' } as const;

/**
 * A KeyProblem in the words of this command: a bad plan or limits is a usage mistake naming the flags
 * (exit code 2); a key or id that cannot be used is the answer (exit code 1).
 */
function problemError(problem: KeyProblem, place?: AdminKeyTable): Error {
  const { detail } = problem;
  const usage = (text: string) => new UsageError(`${text} (see animal-store keys --help)`);
  switch (detail.code) {
    case 'unknown_plan':
      return usage(`--plan must be free, pro, business or enterprise, not "${detail.plan}"`);
    case 'custom_limits_not_allowed':
      return usage('--per-minute and --per-day are for --plan enterprise only');
    case 'enterprise_needs_limits':
      return usage('--plan enterprise needs both --per-minute N and --per-day N');
    case 'invalid_limit':
      return usage(`${LIMIT_FLAGS[detail.limit]} must be a positive whole number, not "${detail.value}"`);
    case 'unknown_id':
      return new Error(`no key has id "${detail.id}"; see animal-store keys list`);
    case 'unknown_key':
      return new Error(
        `no key of ${place?.name ?? 'the store'} has this value (keys given in ANIMAL_STORE_KEYS or library options are not kept there)`,
      );
    case 'malformed_key':
    case 'wrong_length':
    case 'bad_checksum':
    case 'revoked':
      return new Error(problem.message);
  }
}

type KeysFlags = ReturnType<typeof parseKeysArgs>['values'];

/**
 * The arguments of `command`, checked without a store: how many it takes, and for `create` the plan
 * and limits asked for (the request, returned), each mistake a UsageError naming the flag.
 */
function checkArguments(command: string, values: KeysFlags, positionals: readonly string[]): NewKeyRequest | undefined {
  switch (command) {
    case 'create':
    case 'list':
      if (positionals.length > 0)
        throw new UsageError(
          `keys ${command} takes no argument (see animal-store keys --help); what was given is not printed back, in case it is a key`,
        );
      break;
    case 'revoke':
      if (positionals.length !== 1) throw new UsageError('keys revoke takes one key id (see animal-store keys list)');
      break;
    default:
      if (positionals.length !== 1)
        throw new UsageError(
          'keys check takes one key, or - to read it from standard input (see animal-store keys --help)',
        );
  }
  if (command !== 'create') return undefined;
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
  try {
    checkNewKey(request);
  } catch (error) {
    throw error instanceof KeyProblem ? problemError(error) : error;
  }
  return request;
}

async function keysCommand(
  command: string,
  values: KeysFlags,
  positionals: readonly string[],
  newKey: NewKeyRequest | undefined,
  place: AdminKeyTable,
  print: (text: string) => void,
): Promise<void> {
  const keys = new KeyService(place.table, systemClock);
  switch (command) {
    case 'create': {
      await place.prepare();
      const { key, record } = await keys.create(newKey as NewKeyRequest);
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
      const id = positionals[0] as string;
      const all = await keys.list();
      if (!KEY_ID.test(id)) throw notAnId(id, all);
      const before = all.find((entry) => entry.id === id);
      if (before === undefined)
        throw new Error(`no key has id "${id}"${didYouMean(id, all)}; see animal-store keys list`);
      if (before.revokedAt !== null) {
        print(`Key ${id} was already revoked at ${before.revokedAt}; nothing changed.\n`);
        return;
      }
      const revoked = await keys.revoke(id);
      print(`Revoked key ${revoked.id} at ${revoked.revokedAt}.\n`);
      return;
    }
    case 'check': {
      const given = positionals[0] as string;
      const found = await keys.check(given === '-' ? (await readStdin()).trim() : given);
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
