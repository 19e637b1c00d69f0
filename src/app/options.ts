// The options of createAnimalStore: every setting of the settings table (src/config/setting-table.ts), plus what only
// a program can pass. Bad options are a programmer's mistake: a TypeError naming the option, thrown
// before anything is created.
import { assertKnownOptions } from '../config/option-names.js';
import { resolveSettings, type Settings } from '../config/settings.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { ApiKey } from '../keys/api-key.js';
import { type KeySpec, keysFromSpecs } from '../keys/configured-keys.js';
import { type LimiterOptions, resolveLimiterOptions } from '../limits/index.js';
import { createLogger, type Logger } from '../logging/logger.js';

/** Options of `createAnimalStore`: every setting of the settings table, plus what only a program can pass. */
export interface AnimalStoreOptions extends Partial<Settings> {
  /** Keys accepted besides those the store keeps (ANIMAL_STORE_KEYS uses this too). */
  keys?: KeySpec[];
  /**
   * Create (and report as `firstKey`) a key when no active key is configured (default true). Left
   * undefined, a created key is also announced with a warning, so that it is never a silent surprise.
   */
  createFirstKey?: boolean;
  clock?: Clock;
  limits?: LimiterOptions;
  /** Where operational messages and the access log go; default: warnings and errors as JSON lines on stderr. */
  logger?: Logger;
}

/**
 * The options of createAnimalStore that are not settings. A Record over exactly those names, so that an
 * option added to AnimalStoreOptions but not here fails to compile instead of being refused as unknown.
 */
const PROGRAM_OPTIONS: Readonly<Record<Exclude<keyof AnimalStoreOptions, keyof Settings>, true>> = {
  keys: true,
  createFirstKey: true,
  clock: true,
  limits: true,
  logger: true,
};
/** The fields of the `limits` option, from its defaults. */
const LIMITER_OPTIONS = Object.keys(resolveLimiterOptions());

/** Everything createAnimalStore works from, checked. */
export interface ResolvedOptions {
  settings: Settings;
  clock: Clock;
  logger: Logger;
  /** Keys from the options (never stored), as records. */
  fixedKeys: ApiKey[];
  limits: LimiterOptions | undefined;
  createFirstKey: boolean;
}

/** Whether `value` is an object with a function under each of `names`. */
function hasMethods(value: unknown, names: readonly string[]): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function')
  );
}

/** Applies defaults and checks every option; throws a TypeError naming the first bad one. */
export function resolveOptions(options: AnimalStoreOptions): ResolvedOptions {
  if (typeof options !== 'object' || options === null)
    throw new TypeError('the options of createAnimalStore must be an object such as { dataDir: "./data" }');
  const settings = resolveSettings(options, Object.keys(PROGRAM_OPTIONS));
  const fixedKeys = keysFromSpecs(options.keys ?? [], 'option keys');
  if (options.limits !== undefined) {
    if (typeof options.limits !== 'object' || options.limits === null) {
      throw new TypeError('option limits must be an object such as { banMs: 60000 }');
    }
    assertKnownOptions(options.limits, LIMITER_OPTIONS, 'limits.');
    resolveLimiterOptions(options.limits);
  }
  if (options.createFirstKey !== undefined && typeof options.createFirstKey !== 'boolean')
    throw new TypeError('option createFirstKey must be true or false');
  if (options.clock !== undefined && !hasMethods(options.clock, ['now', 'monotonic']))
    throw new TypeError('option clock must have now() and monotonic() methods, as systemClock has');
  if (options.logger !== undefined && !hasMethods(options.logger, ['error', 'warn', 'info']))
    throw new TypeError('option logger must have error(), warn() and info() methods, as createLogger() makes');
  return {
    settings,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? createLogger({ level: settings.logLevel }),
    fixedKeys,
    limits: options.limits,
    createFirstKey: options.createFirstKey ?? true,
  };
}
