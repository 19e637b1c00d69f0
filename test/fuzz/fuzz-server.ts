// The service the fuzzer talks to: two keys with limits out of the way (a second key, so that what one
// key made is asked for by another), and a failed-authentication budget that the bad credentials the
// fuzzer sends now and then cannot use up, which would leave every later request a 429.
import type { AnimalStoreOptions } from '../../src/app/create-animal-store.js';
import { TEST_KEY } from '../helpers/server.js';

const SECOND_KEY = 'fuzz-second-key-0123456789abcdef';
const UNLIMITED = { plan: 'enterprise', perMinute: 1_000_000_000, perDay: 1_000_000_000 } as const;

/** Options of startServer for a fuzzed service. */
export function fuzzServerOptions(): AnimalStoreOptions {
  return {
    keys: [
      { key: TEST_KEY, ...UNLIMITED },
      { key: SECOND_KEY, ...UNLIMITED },
    ],
    limits: { failedAuthCapacity: 1_000_000_000 },
  };
}

/** The valid Authorization values of that service, the one to use most first. */
export const FUZZ_AUTHORIZATIONS: readonly [string, ...string[]] = [`Bearer ${TEST_KEY}`, `Bearer ${SECOND_KEY}`];
