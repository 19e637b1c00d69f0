// One grammar for every command, through real child processes: help and version everywhere, one line with
// a suggestion for a slip, one line for a flag without its value, and the documented exit codes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../helpers/child.js';

async function cli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const child = runCli(args, env);
  const code = await child.exited;
  return { code, out: child.stdout(), err: child.stderr() };
}

test('-h and --help show the help of each command, --version the version after any command', async () => {
  const version = (
    JSON.parse(await import('node:fs').then((fs) => fs.readFileSync('package.json', 'utf8'))) as {
      version: string;
    }
  ).version;
  const runs = await Promise.all([
    cli(['-h']),
    cli(['--help']),
    cli(['serve', '-h']),
    cli(['keys', '-h']),
    cli(['--version']),
    cli(['serve', '--version']),
    cli(['keys', 'list', '--version']),
  ]);
  const [top, topLong, serve, keys, ...versions] = runs;
  for (const run of runs) assert.equal(run.code, 0, run.err);
  assert.match(top?.out ?? '', /^Usage: animal-store \[command\]/);
  assert.equal(top?.out, topLong?.out);
  assert.match(top?.out ?? '', /Exit codes: 0 done; 1 .*\n2 a usage mistake/);
  assert.match(serve?.out ?? '', /^Usage: animal-store serve/);
  assert.match(keys?.out ?? '', /^Usage: animal-store keys/);
  for (const run of versions) assert.equal(run.out, `${version}\n`);
});

test('slips get one line with what was probably meant, and exit code 2', async () => {
  const [command, flag, bare, ambiguous, positional] = await Promise.all([
    cli(['srve']),
    cli(['serve', '--prot', '9000']),
    cli(['serve', '--port']),
    cli(['--port', '--host', '127.0.0.1']),
    cli(['serve', 'extra']),
  ]);
  assert.equal(
    command.err,
    'animal-store: unknown command "srve"; did you mean serve? commands: serve, keys, migrate, backup, restore, bench (see animal-store --help)\n',
  );
  assert.equal(flag.err, 'animal-store: unknown option --prot; did you mean --port? (see animal-store serve --help)\n');
  assert.equal(
    bare.err,
    'animal-store: --port needs a value, as in --port VALUE or --port=VALUE (see animal-store serve --help)\n',
  );
  assert.match(ambiguous.err, /^animal-store: --port needs a value/);
  assert.equal(positional.err, 'animal-store: unexpected argument "extra" (see animal-store serve --help)\n');
  for (const run of [command, flag, bare, ambiguous, positional]) assert.equal(run.code, 2);
});

test('a bad ANIMAL_STORE_KEYS entry is named by the variable, not by a library option', async () => {
  const run = await cli(['serve', '--port', '0'], { ANIMAL_STORE_KEYS: 'a-long-enough-secret-key-1:gold' });
  assert.equal(run.code, 2);
  assert.match(run.err, /ANIMAL_STORE_KEYS entry 1 has unknown plan "gold"; use free, pro, business or enterprise/);
  assert.doesNotMatch(run.err, /option keys/);
  const short = await cli(['serve', '--port', '0'], { ANIMAL_STORE_KEYS: 'short:pro' });
  assert.match(short.err, /ANIMAL_STORE_KEYS entry 1 has a key that is not 16 to 256 characters/);
  assert.doesNotMatch(short.err, /short/, 'the key itself is not printed');
});
