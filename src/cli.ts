#!/usr/bin/env node
// The command line: `animal-store serve` (the default) with flags and ANIMAL_STORE_* variables.
// Operator mistakes get one line naming the problem and the fix, and exit code 2.
import { parseArgs } from 'node:util';
import { parseKeysVariable } from './auth/configured-keys.js';
import { parseSettingText, SETTINGS, type Settings } from './config.js';
import { createAnimalStore } from './server.js';

/** Exit code for a usage or configuration error. */
const EXIT_USAGE = 2;
/** The CLI keeps its data in ./data unless told otherwise. */
const DEFAULT_DATA_DIR = './data';

const SERVE_HELP = `Usage: animal-store serve [options]

Serves the animal store API. Every option can also be set by its environment variable.

Options:
${SETTINGS.map((setting) => `  ${`${setting.flag} VALUE`.padEnd(30)} ${setting.description} [${setting.env}]`).join('\n')}
  ${'--help'.padEnd(30)} Show this help.

Keys: ANIMAL_STORE_KEYS=KEY:PLAN,KEY:enterprise:PER_MINUTE:PER_DAY adds keys besides data/keys.json.

Examples:
  animal-store serve
  animal-store serve --port 9000 --host 0.0.0.0 --data-dir /var/lib/animal-store
  ANIMAL_STORE_KEYS=my-long-secret-key-123:pro animal-store serve --durability interval
`;

class UsageError extends Error {}

/** Reads flags and environment into createAnimalStore options. */
export function serveOptions(argv: readonly string[], env: NodeJS.ProcessEnv): Partial<Settings> & { keys: ReturnType<typeof parseKeysVariable> } {
  const flags: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  for (const setting of SETTINGS) flags[setting.flag.slice(2)] = { type: 'string' };
  const parsed = parseArgs({ args: [...argv], options: flags, strict: true, allowPositionals: false });
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help === true) {
    process.stdout.write(SERVE_HELP);
    process.exit(0);
  }
  const options: Partial<Settings> = { dataDir: DEFAULT_DATA_DIR };
  for (const setting of SETTINGS) {
    const flag = values[setting.flag.slice(2)];
    const fromEnv = env[setting.env];
    const text = typeof flag === 'string' ? flag : fromEnv;
    if (text === undefined) continue;
    const source = typeof flag === 'string' ? setting.flag : setting.env;
    (options as Record<string, unknown>)[setting.option] = parseSettingText(setting, text, source);
  }
  return { ...options, keys: parseKeysVariable(env.ANIMAL_STORE_KEYS ?? '') };
}

async function serve(argv: readonly string[]): Promise<void> {
  let options;
  try {
    options = serveOptions(argv, process.env);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} (see animal-store serve --help)`);
  }
  const app = await createAnimalStore(options);
  let address;
  try {
    address = await app.listen();
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${app.settings.port} is in use; stop the other server or pass --port with a free port`);
    if (code === 'EACCES') throw new UsageError(`no permission to listen on port ${app.settings.port}; use a port above 1023`);
    throw error;
  }
  const apiUrl = `${address.url}${app.settings.basePath}`;
  process.stdout.write(`animal-store listening on ${apiUrl} (data in ${app.settings.dataDir ?? 'memory'})\n`);
  if (app.firstKey !== undefined) {
    process.stdout.write(
      `\nCreated a first API key (free plan). It is shown only this once; only its hash is kept:\n\n  ${app.firstKey}\n\n`
      + `Try it:\n\n  curl -H "Authorization: Bearer ${app.firstKey}" ${apiUrl}/pets\n\n`,
    );
  }
  const stop = (): void => {
    app.close().then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`animal-store: error while stopping: ${(error as Error).message}\n`);
      process.exit(1);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

async function main(argv: readonly string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command.startsWith('-')) return serve(argv);
  throw new UsageError(`unknown command "${command}"; commands: serve`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`animal-store: ${message}\n`);
  process.exit(error instanceof UsageError || error instanceof TypeError ? EXIT_USAGE : 1);
});
