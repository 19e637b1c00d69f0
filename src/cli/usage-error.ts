// A mistake of the person at the keyboard: reported in one line, exit code 2.

/** Exit code for a usage or configuration error. */
export const EXIT_USAGE = 2;

/** Thrown for bad flags, values and commands. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Runs `parse`, turning its TypeError (a bad value) into a UsageError that points at `helpCommand`. */
export function asUsage<T>(parse: () => T, helpCommand: string): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`${error.message} (see ${helpCommand} --help)`);
    throw error;
  }
}
