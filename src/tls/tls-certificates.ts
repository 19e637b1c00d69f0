// The certificate a TLS service is serving, and its renewal without a restart. The files are watched
// (their directories, so that a write, a replacement by rename, a symbolic link moved as certbot does,
// or a Kubernetes secret's swap of its `..data` link are all seen) and read again on demand (`animal-store serve` does so on
// SIGUSR2). A pair is taken only once both files are whole and belong together: a half-written or bad
// pair is reported and the one in force kept, and the next change is tried again. Whoever serves
// (src/app/listener.ts) is told of each new pair and gives it to the next connections; open ones
// keep the certificate they were opened with.
import { type FSWatcher, realpathSync, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import {
  describeCertificate,
  readTlsPair,
  samePair,
  type TlsPair,
  type TlsPaths,
  validityProblem,
} from './tls-pair.js';

/**
 * How long after a change in a watched directory the files are read: one read for a burst of changes
 * (a tool writing the certificate and then the key), and at most one read this often whatever else
 * changes in the directory.
 */
export const TLS_RELOAD_SETTLE_MS = 250;

/** Where the outcome of a reload the service did on its own is said. */
export interface TlsLog {
  info(line: string): void;
  warn(line: string): void;
}

/** The signal `animal-store serve` reloads on: named in the message of files that cannot be watched. */
export const TLS_RELOAD_SIGNAL = 'SIGUSR2';

export class TlsCertificates {
  readonly #paths: TlsPaths;
  readonly #log: TlsLog;
  readonly #now: () => number;
  #pair: TlsPair;
  readonly #listeners = new Set<(pair: TlsPair) => void>();
  readonly #watchers: FSWatcher[] = [];
  /** The names whose changes count: the two files, and the files their symbolic links point to. */
  readonly #names = new Set<string>();
  /** The last problem a watched change met, said once until a reload succeeds or another problem comes. */
  #lastProblem: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Reloads run one after another: a signal during a watched change waits for it. */
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(paths: TlsPaths, pair: TlsPair, log: TlsLog, now: () => number) {
    this.#paths = paths;
    this.#pair = pair;
    this.#log = log;
    this.#now = now;
  }

  /** Reads and checks the pair (a TlsFileError names the file that is wrong); warns of one out of its dates. */
  static async open(paths: TlsPaths, log: TlsLog, now: () => number = Date.now): Promise<TlsCertificates> {
    const pair = await readTlsPair(paths);
    const problem = validityProblem(pair.certificate, now());
    if (problem !== undefined) log.warn(`the TLS certificate in ${paths.certPath} is served, but ${problem}`);
    return new TlsCertificates(paths, pair, log, now);
  }

  /** The pair in force. */
  get pair(): TlsPair {
    return this.#pair;
  }

  /** Calls `listener` with every new pair taken; returns how to stop. */
  onChange(listener: (pair: TlsPair) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Reads both files again and takes them if they changed: 'reloaded', or 'unchanged' when they hold
   * what is in force. Rejects with the TlsFileError of a bad pair, the pair in force kept.
   */
  reload(): Promise<'reloaded' | 'unchanged'> {
    const next = this.#queue.then(() => this.#reloadNow());
    this.#queue = next.catch(() => {});
    return next;
  }

  async #reloadNow(): Promise<'reloaded' | 'unchanged'> {
    const pair = await readTlsPair(this.#paths);
    if (samePair(pair, this.#pair)) return 'unchanged';
    this.#pair = pair;
    for (const listener of this.#listeners) listener(pair);
    const problem = validityProblem(pair.certificate, this.#now());
    this.#log.info(
      `TLS certificate reloaded (${describeCertificate(pair.certificate)}): new connections get it, open ones keep theirs`,
    );
    if (problem !== undefined)
      this.#log.warn(`the TLS certificate in ${this.#paths.certPath} is served, but ${problem}`);
    return 'reloaded';
  }

  /**
   * Follows the files: a change in the directory of either (or of the file a symbolic link points to)
   * reloads them. A directory that cannot be watched is reported with what still reloads.
   */
  watch(): void {
    const directories = new Set<string>();
    for (const path of [this.#paths.certPath, this.#paths.keyPath]) {
      directories.add(dirname(resolve(path)));
      this.#names.add(basename(path));
      try {
        const real = realpathSync(path);
        directories.add(dirname(real));
        this.#names.add(basename(real));
      } catch {
        // Read at start, so it exists; gone since, its own directory is still watched.
      }
    }
    for (const directory of directories) {
      try {
        const watcher = watch(directory, { persistent: false }, (_event, name) => this.#changed(name));
        watcher.on('error', (error) => {
          watcher.close();
          this.#unwatched(directory, error);
        });
        this.#watchers.push(watcher);
      } catch (error) {
        this.#unwatched(directory, error as Error);
      }
    }
  }

  /** A change of `name` in a watched directory: the files are read once things settle. */
  #changed(name: string | null): void {
    if (name !== null && !this.#names.has(name) && !name.startsWith('..')) return;
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.reload().then(
        () => {
          this.#lastProblem = undefined;
        },
        (error: unknown) => {
          // Said once: the same problem found again (another change nearby) is no news.
          const message = (error as Error).message;
          if (message === this.#lastProblem) return;
          this.#lastProblem = message;
          this.#log.warn(`TLS certificate not reloaded, the one in force is kept: ${message}`);
        },
      );
    }, TLS_RELOAD_SETTLE_MS);
    this.#timer.unref();
  }

  #unwatched(directory: string, error: Error): void {
    this.#log.warn(
      `changes to the TLS files in ${directory} are no longer noticed (${error.message}); ` +
        `send ${TLS_RELOAD_SIGNAL} to animal-store serve (or call reloadTls()) after replacing them`,
    );
  }

  /** Stops watching; the pair in force stays readable. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const watcher of this.#watchers.splice(0)) watcher.close();
    this.#listeners.clear();
  }
}
