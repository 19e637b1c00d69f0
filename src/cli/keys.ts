// `animal-store keys create|list|revoke|check`: key management on the keys file of a data directory.
// A running service on the same directory picks changes up within a second.
import { parseArgs } from 'node:util';
import type { ApiKey } from '../auth/api-key.js';
import { systemClock } from '../clock.js';
import { KeyProblem, KeyService } from '../service/key-service.js';
import { FileKeyTable } from '../store/embedded/key-file.js';
import { DATA_DIR_MODE } from '../storage/open-journal.js';
import { nodeFs } from '../storage/node-fs.js';
import { asUsage, dataDirUsageError, UsageError } from './usage-error.js';

export const KEYS_HELP = `Usage: animal-store keys <create|list|revoke|check> [options]

  keys create --plan free|pro|business|enterprise [--per-minute N --per-day N] [--name LABEL]
      Creates a key and prints it once; only its hash is stored. Enterprise needs both numbers.
  keys list [--json]
      Shows id, name, plan, limits, created and revoked times (never the key).
  keys revoke ID
      Revokes a key; a running service refuses it within a second.
  keys check KEY | keys check -
      Says which key this is and whether it is active; exit code 1 when it is mistyped (a generated
      key's checksum or length is wrong), unknown to the keys file, or revoked. Nothing is contacted.
      With -, the key is read from standard input, so it stays out of the shell history and ps.

Every command takes --data-dir DIR (default ANIMAL_STORE_DATA_DIR, then ./data).

Examples:
  animal-store keys create --plan pro --name "mobile app"
  animal-store keys create --plan enterprise --per-minute 5000 --per-day 2000000 --name partner
  animal-store keys list
  animal-store keys revoke key_1a2b3c4d
  printf '%s' "$ANIMAL_STORE_KEY" | animal-store keys check -
`;

function positiveInteger(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new TypeError(`${flag} must be a positive whole number, not "${text}"`);
  return Number(text);
}

/** The flags of every keys subcommand (parseArgs infers their types from this one place). */
function parseKeysArgs(args: readonly string[]) {
  return parseArgs({
    args,
    options: {
      'data-dir': { type: 'string' },
      plan: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
      name: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
    allowPositionals: true,
    strict: true,
  });
}

/** Runs a keys subcommand; prints to stdout. */
export async function runKeys(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const [command, ...rest] = argv;
  const { values, positionals } = asUsage(() => parseKeysArgs(rest), 'animal-store keys');
  if (values.help === true || command === undefined || command === '--help') {
    print(KEYS_HELP);
    return;
  }
  const dataDir = values['data-dir'] ?? env.ANIMAL_STORE_DATA_DIR ?? './data';
  try {
    await keysCommand(command, values, positionals, dataDir, print);
  } catch (error) {
    // A key that cannot be used is the answer of `keys check`, not a crash: one line, exit code 1.
    if (error instanceof KeyProblem) throw new Error(error.message);
    throw dataDirUsageError(error, dataDir) ?? error;
  }
}

type KeysFlags = ReturnType<typeof parseKeysArgs>['values'];

async function keysCommand(
  command: string,
  values: KeysFlags,
  positionals: readonly string[],
  dataDir: string,
  print: (text: string) => void,
): Promise<void> {
  const keys = new KeyService(new FileKeyTable(dataDir), systemClock);
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
      await nodeFs.mkdir(dataDir, DATA_DIR_MODE);
      const { key, record } = await keys.create(request).catch((error: unknown) => {
        if (error instanceof TypeError) throw new UsageError(`${error.message} (see animal-store keys --help)`);
        throw error;
      });
      print(
        `Created key ${record.id} (${record.plan}: ${record.perMinute}/min, ${record.perDay}/day). It is shown only this once:\n\n  ${key}\n\n`,
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
      const revoked = await keys.revoke(id).catch((error: unknown) => {
        if (error instanceof KeyProblem) throw new UsageError(error.message);
        throw error;
      });
      print(`Revoked key ${revoked.id} at ${revoked.revokedAt}.\n`);
      return;
    }
    case 'check': {
      const [given] = positionals;
      if (given === undefined || positionals.length > 1)
        throw new UsageError(
          'keys check takes one key, or - to read it from standard input (see animal-store keys --help)',
        );
      const found = await keys.check(given === '-' ? (await readStdin()).trim() : given, `the keys file in ${dataDir}`);
      print(
        `Key ${found.id}${found.name === '' ? '' : ` (${found.name})`} is active: ${found.plan}, ${found.perMinute}/min, ${found.perDay}/day.\n`,
      );
      return;
    }
    default:
      throw new UsageError(`unknown keys command "${command}"; use create, list, revoke or check`);
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
