// `animal-store bench [options]`: the load tester of bench/ (issue 6). Loaded on demand, so serving
// never loads the bench code or undici (a development dependency, like the bench itself).
import { UsageError } from './usage-error.js';

/** Exit code of a run in which some answer had a status the scenario did not expect. */
const EXIT_RUN_FAILED = 1;

/** Runs a bench scenario; a bad option is a UsageError (exit 2), a failed run sets exit code 1. */
export async function runBench(argv: readonly string[], env: NodeJS.ProcessEnv, print: (text: string) => void): Promise<void> {
  const { runBenchCommand } = await import('../../bench/run.js');
  let code: number;
  try {
    code = await runBenchCommand(argv, env, {
      print,
      printErr: (text) => process.stderr.write(text),
      isTty: process.stderr.isTTY === true,
    });
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(`${error.message} (see animal-store bench --help)`);
    throw error;
  }
  if (code !== 0) process.exitCode = EXIT_RUN_FAILED;
}
