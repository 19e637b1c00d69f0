// `animal-store bench [options]`: the load tester of bench/. Loaded on demand, so serving
// never loads the bench code, nor undici: a runtime dependency of the package, but one that only
// the client (animal-store/client) and the bench use, never the server.
import { UsageError } from './usage-error.js';

/** Exit code of a run in which some answer had a status the scenario did not expect. */
const EXIT_RUN_FAILED = 1;

/**
 * The bench entry point, named by a variable so that `tsc -p tsconfig.build.json` (rootDir src) does
 * not pull bench/ into the package build; the published package and the single executable leave it out.
 */
const BENCH_MODULE = '../../bench/run.js';

interface BenchModule {
  runBenchCommand(
    argv: readonly string[],
    env: NodeJS.ProcessEnv,
    io: {
      print(text: string): void;
      printErr(text: string): void;
      isTty: boolean;
    },
  ): Promise<number>;
}

async function loadBench(): Promise<BenchModule> {
  try {
    return (await import(BENCH_MODULE)) as BenchModule;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND') {
      throw new UsageError(
        'the bench suite is not part of this build: run it from a clone of the repository (npm run bench)',
      );
    }
    throw error;
  }
}

/** Runs a bench scenario; a bad option is a UsageError (exit 2), a failed run sets exit code 1. */
export async function runBench(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  print: (text: string) => void,
): Promise<void> {
  const { runBenchCommand } = await loadBench();
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
