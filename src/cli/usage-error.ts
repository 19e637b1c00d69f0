// A mistake of the person at the keyboard: reported in one line, exit code 2.
import { existsSync } from 'node:fs';
import { resolve, sep } from 'node:path';

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

function isWithin(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/** What an errno code on the data directory means to an operator. */
const DATA_DIR_PROBLEMS: Readonly<Record<string, string>> = {
  EACCES: 'no permission to write there',
  EPERM: 'no permission to write there',
  EROFS: 'it is on a read-only file system',
  ENOTDIR: 'a part of its path is a file, not a directory',
  ENOENT: 'it cannot be created there',
  EISDIR: 'a file the service needs there is a directory',
  ENOSPC: 'its disk is full',
  EDQUOT: 'its disk quota is used up',
};

/** What an errno code on a file that exists in the data directory means, and what to do about it. */
const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  EACCES: "no permission to read or write it; give it to the service's user",
  EPERM: "no permission to read or write it; give it to the service's user",
  EISDIR: 'it is a directory where the service keeps a file; move it away',
};

/**
 * The UsageError for a file-system `error` met while opening data directory `dir`, or undefined when
 * the error is of another kind: the operator fixes it with another --data-dir or a writable one.
 */
export function dataDirUsageError(error: unknown, dir: string): UsageError | undefined {
  // Another process owning the directory is no usage mistake: its message (naming that process's pid and
  // what to do) is printed as it is, with exit code 1.
  if (!(error instanceof Error) || error.name === 'DataDirLockedError') return undefined;
  const { code, path } = error as NodeJS.ErrnoException;
  const problem = code === undefined ? undefined : DATA_DIR_PROBLEMS[code];
  // Only errors on the directory, a file in it or a parent being created: another file's problem is
  // not fixed by --data-dir.
  const on = path === undefined ? undefined : resolve(path);
  if (problem === undefined || on === undefined || !(isWithin(on, resolve(dir)) || isWithin(resolve(dir), on)))
    return undefined;
  // A file of the directory that is there but unusable is named: another directory is not the fix.
  const fileProblem = FILE_PROBLEMS[code as string];
  if (fileProblem !== undefined && on !== resolve(dir) && isWithin(on, resolve(dir)) && existsSync(on))
    return new UsageError(`cannot use ${path as string} in the data directory ${dir}: ${fileProblem} (${code})`);
  return new UsageError(
    `cannot use the data directory ${dir}: ${problem} (${code}); pass --data-dir with a writable directory`,
  );
}
