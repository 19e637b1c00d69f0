// `animal-store keys create|list|revoke|check`: key management on the keys file of a data directory.
// A running service on the same directory picks changes up within a second.
import { parseArgs } from 'node:util';
import {
  type ApiKey,
  GENERATED_KEY_LENGTH,
  hashKey,
  hasValidChecksum,
  isWellFormedKey,
  KEY_PREFIX,
} from '../auth/api-key.js';
import { createKey, formatKeyTable, revokeKey } from '../auth/key-admin.js';
import { loadKeyFile } from '../auth/key-file.js';
import { nodeFs } from '../storage/node-fs.js';
import { DATA_DIR_MODE } from '../storage/open-journal.js';
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
      const { key, record } = await createKey(dataDir, request, Date.now()).catch((error: unknown) => {
        if (error instanceof TypeError) throw new UsageError(`${error.message} (see animal-store keys --help)`);
        throw error;
      });
      print(
        `Created key ${record.id} (${record.plan}: ${record.perMinute}/min, ${record.perDay}/day). It is shown only this once:\n\n  ${key}\n\n`,
      );
      return;
    }
    case 'list': {
      const keys = await loadKeyFile(dataDir);
      print(
        values.json === true
          ? `${JSON.stringify(
              keys.map(({ hash: _hash, ...key }) => key),
              null,
              2,
            )}\n`
          : `${formatKeyTable(keys)}\n`,
      );
      return;
    }
    case 'revoke': {
      const [id] = positionals;
      if (id === undefined || positionals.length > 1)
        throw new UsageError('keys revoke takes one key id (see animal-store keys list)');
      const revoked = await revokeKey(dataDir, id, Date.now()).catch((error: unknown) => {
        if (error instanceof TypeError) throw new UsageError(error.message);
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
      const found = await checkKey(dataDir, given === '-' ? (await readStdin()).trim() : given);
      print(
        `Key ${found.id}${found.name === '' ? '' : ` (${found.name})`} is active: ${found.plan}, ${found.perMinute}/min, ${found.perDay}/day.\n`,
      );
      return;
    }
    default:
      throw new UsageError(`unknown keys command "${command}"; use create, list, revoke or check`);
  }
}

/**
 * The active key of the keys file whose value is `key`; otherwise an Error saying what is wrong with it
 * (exit code 1). The checksum is checked first, offline: it is what tells a mistyped key from a revoked one.
 */
async function checkKey(dataDir: string, key: string): Promise<ApiKey> {
  if (!isWellFormedKey(key))
    throw new Error('this is not a well-formed key: 16 to 256 characters of A-Z a-z 0-9 - . _ ~ + /, then any "="');
  if (key.startsWith(KEY_PREFIX) && key.length !== GENERATED_KEY_LENGTH) {
    throw new Error(
      `this looks like a generated key but has ${key.length} characters, not ${GENERATED_KEY_LENGTH}: it was cut short or has extra characters; copy it again from where it was first shown`,
    );
  }
  if (hasValidChecksum(key) === false)
    throw new Error('this key fails its checksum: it was mistyped; copy it again from where it was first shown');
  const hash = hashKey(key);
  const found = (await loadKeyFile(dataDir)).find((entry) => entry.hash === hash);
  if (found === undefined)
    throw new Error(
      `no key of the keys file in ${dataDir} has this value (keys given in ANIMAL_STORE_KEYS or library options are not in the file)`,
    );
  if (found.revokedAt !== null) throw new Error(`key ${found.id} was revoked at ${found.revokedAt}`);
  return found;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
