// Runs the cluster primary of src/cli/cluster.ts over the worker script and arguments given as JSON in
// argv[2]: { workers, exec, args, clockStands? }. Its log lines go to stderr prefixed "primary: ", the
// listening line to stdout; it exits with the primary's exit code.
import { runPrimary } from '../../src/cli/cluster.js';

const { workers, exec, args, clockStands } = JSON.parse(process.argv[2] ?? '{}') as {
  workers: number;
  exec: string;
  args: string[];
  /** The primary's clock stands still: every worker's death counts as young, however slow its start was. */
  clockStands?: boolean;
};
const primary = runPrimary({
  workers,
  exec,
  args,
  ...(clockStands === true ? { now: () => 0 } : {}),
  log: {
    info: (line) => process.stderr.write(`primary: ${line}\n`),
    warn: (line) => process.stderr.write(`primary: ${line}\n`),
  },
  print: (text) => process.stdout.write(text),
});
process.exit(await primary.exited);
