// A PostgreSQL server of a test's own, on a port of its own, that the test can stop and start: the
// machine's shared server must never be stopped under other tests. Made with the server's own tools
// (initdb, pg_ctl), run as the postgres user when the test runs as root, as PostgreSQL requires.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';

const run = promisify(execFile);

/** A private server: its URL, and how to stop, start and remove it. */
export interface PrivatePostgres {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

/** The directory of PostgreSQL's server programs, if they are installed (Debian: /usr/lib/postgresql/N/bin). */
function serverBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const version of versions)
    if (existsSync(join(root, version, 'bin', 'pg_ctl'))) return join(root, version, 'bin');
  return undefined;
}

/** Why a private server cannot be made here, or undefined when it can. */
export function privatePostgresSkipReason(): string | undefined {
  if (serverBinaries() === undefined) return "PostgreSQL's server programs (initdb, pg_ctl) are not installed";
  if (userInfo().uid === 0 && !existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser'))
    return 'running as root without runuser, so PostgreSQL cannot be started as another user';
  return undefined;
}

/** Creates and starts a private server with trust authentication on 127.0.0.1. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = serverBinaries() as string;
  const dir = await mkdtemp(join(tmpdir(), 'animal-store-pg-'));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout.trim()), Number(group.trim()));
  }
  const as = (program: string, args: string[]): Promise<unknown> =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args]) : run(join(bin, program), args);
  const port = await freePort();
  const data = join(dir, 'data');
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async (): Promise<void> => {
    await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    },
    start,
    remove: async () => {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(dir, { recursive: true, force: true });
    },
  };
}
