// One grammar for every command: `-h`/`--help` and `--version` everywhere, and a parse error as one line
// that names the flag and what to do: "did you mean" for a slip, "needs a value" for a flag given bare.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestNames } from '../config/option-names.js';
import { UsageError } from './usage-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** The flags every command takes besides its own. */
const COMMON_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const satisfies Options;

/** The parseArgs configuration of a command with options `O` besides the common ones. */
type CommandConfig<O extends Options> = {
  args: string[];
  options: typeof COMMON_FLAGS & O;
  allowPositionals: boolean;
  strict: true;
};

/** parseArgs with the common flags, its errors turned into one-line UsageErrors pointing at `command --help`. */
export function parseCommandArgs<O extends Options>(
  args: readonly string[],
  options: O,
  command: string,
  allowPositionals: boolean,
): ReturnType<typeof parseArgs<CommandConfig<O>>> {
  const config: CommandConfig<O> = {
    args: [...args],
    options: { ...COMMON_FLAGS, ...options },
    allowPositionals,
    strict: true,
  };
  try {
    return parseArgs(config);
  } catch (error) {
    throw parseProblem(error, Object.keys(config.options), command) ?? error;
  }
}

/** The UsageError for a parseArgs error, or undefined for any other error. */
function parseProblem(error: unknown, flags: readonly string[], command: string): UsageError | undefined {
  const { code, message } = error as { code?: string; message: string };
  const help = `(see ${command} --help)`;
  const flag = /'(-[^' ]*)/.exec(message)?.[1] ?? '';
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const close = closestNames(flag.replace(/^-+/, '').split('=')[0] ?? '', flags).map((name) => `--${name}`);
      const hint = close.length > 0 ? `; did you mean ${close.join(' or ')}?` : '';
      return new UsageError(`unknown option ${flag}${hint} ${help}`);
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(`${flag} needs a value, as in ${flag} VALUE or ${flag}=VALUE ${help}`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL': {
      const argument = /'([^']*)'/.exec(message)?.[1] ?? '';
      return new UsageError(`unexpected argument "${argument}" ${help}`);
    }
    default:
      return undefined;
  }
}

/** Unknown command `name`: one line with the closest known command, if any. */
export function unknownCommand(name: string, commands: readonly string[], command: string): UsageError {
  const close = closestNames(name, commands);
  const hint = close.length > 0 ? `did you mean ${close.join(' or ')}? ` : '';
  return new UsageError(`unknown command "${name}"; ${hint}commands: ${commands.join(', ')} (see ${command} --help)`);
}

/** The exit codes, the same for every command (shown in every help). */
export const EXIT_CODES_HELP = `Exit codes: 0 done; 1 a runtime failure, or what was asked for is not there (a key, a file);
2 a usage mistake (an unknown or bad flag, command or value).`;
