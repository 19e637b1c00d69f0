#!/usr/bin/env node
// The command line: `animal-store serve` (the default), `animal-store keys ...`, `--version`.
// Operator mistakes get one line naming the problem and the fix, and exit code 2; a runtime failure, or
// something asked for that is not there, exit code 1.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import { isSea } from 'node:sea';
import { EXIT_CODES_HELP, unknownCommand } from './cli/flags.js';
import { runKeys } from './cli/keys.js';
import { runServe } from './cli/serve.js';
import { EXIT_USAGE, UsageError } from './cli/usage-error.js';

const COMMANDS = ['serve', 'keys', 'migrate', 'backup', 'restore', 'bench'] as const;

const HELP = `Usage: animal-store [command] [options]

Commands:
  serve    Serve the API (the default command); animal-store serve --help
  keys     Create, list, revoke and check API keys; animal-store keys --help
  migrate  Copy an embedded store into PostgreSQL; animal-store migrate --help
  backup   Back up a data directory while the service runs; animal-store backup --help
  restore  Restore a backup into a new data directory; animal-store restore --help
  bench    Load-test the API (autocannon-style); animal-store bench --help

Options (every command takes them):
  -h, --help   Show the help of the command.
  --version    Print the version.

Examples:
  animal-store serve --port 8080 --data-dir ./data
  ANIMAL_STORE_KEYS=my-long-secret-key-123:pro animal-store
  animal-store keys create --plan pro --name "mobile app"
  animal-store bench --scenario list -c 10 -d 10s
  animal-store bench --url http://127.0.0.1:8080/v1 --key "$API_KEY" --scenario get

${EXIT_CODES_HELP}

bench runs from a clone of the repository: the package and the single executable leave it out.
`;

const print = (text: string): void => {
  process.stdout.write(text);
};

/** Flags before a `--` (after it, everything is an argument). */
function flagsOf(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf('--');
  return end === -1 ? argv : argv.slice(0, end);
}

async function main(argv: readonly string[]): Promise<void> {
  // --version means the same after any command: the version of this one program.
  if (flagsOf(argv).includes('--version')) {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    return print(`${version}\n`);
  }
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve':
      return runServe(rest, process.env, print);
    case 'keys':
      return runKeys(rest, process.env, print);
    case 'migrate':
      return (await import('./cli/migrate.js')).runMigrate(rest, process.env, print);
    case 'backup':
      return (await import('./cli/backup.js')).runBackup(rest, process.env, print);
    case 'restore':
      return (await import('./cli/backup.js')).runRestore(rest, process.env, print);
    case 'bench':
      // Loaded on demand: serving never loads the bench code.
      return (await import('./cli/bench.js')).runBench(rest, process.env, print);
    case '--help':
    case '-h':
    case 'help':
      return print(HELP);
    default:
      // Flags without a command are serve's (`animal-store --port 9000`).
      if (command.startsWith('-')) return runServe(argv, process.env, print);
      throw unknownCommand(command, COMMANDS, 'animal-store');
  }
}

/**
 * The arguments the command was given. node:cluster starts a worker as `node SCRIPT ARGS...` with the
 * primary's script; a single executable is its own script, so its worker gets the executable's path
 * once more before the arguments, which is not a command.
 */
function commandArgs(): string[] {
  const args = process.argv.slice(2);
  return cluster.isWorker && isSea() ? args.slice(1) : args;
}

main(commandArgs()).catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`animal-store: ${message}\n`);
  process.exit(error instanceof UsageError ? EXIT_USAGE : 1);
});
