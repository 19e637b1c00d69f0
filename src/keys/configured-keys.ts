// Keys an operator supplies, from ANIMAL_STORE_KEYS or the library options. They are taken as given,
// whatever their prefix, provided they are well-formed bearer tokens (else they could never be sent).
import { assertKnownOptions } from '../config/option-names.js';
import { type Limits, limitsOf } from '../limits/index.js';
import {
  type ApiKey,
  hashKey,
  isWellFormedKey,
  MAX_KEY_LENGTH,
  MIN_KEY_LENGTH,
  PLAN_NAMES,
  type PlanName,
} from './api-key.js';

/** A key as an operator writes it down. */
export interface KeySpec {
  key: string;
  plan?: PlanName;
  perMinute?: number;
  perDay?: number;
  name?: string;
}

/** The fields of a KeySpec: a misspelt one (`plna`) must not silently give the key the free plan. */
const KEY_SPEC_FIELDS: readonly (keyof KeySpec)[] = ['key', 'plan', 'perMinute', 'perDay', 'name'];

/**
 * Parses ANIMAL_STORE_KEYS: comma-separated `KEY:PLAN` entries, `KEY:enterprise:PER_MINUTE:PER_DAY` for
 * custom limits, `KEY` alone for the free plan. Throws a TypeError naming the entry at fault.
 */
export function parseKeysVariable(text: string, source = 'ANIMAL_STORE_KEYS'): KeySpec[] {
  const specs: KeySpec[] = [];
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  entries.forEach((entry, index) => {
    const [key = '', plan = 'free', perMinute, perDay, ...rest] = entry.split(':');
    const where = `${source} entry ${index + 1}`;
    if (rest.length > 0)
      throw new TypeError(`${where} has too many ":" parts; write KEY:PLAN or KEY:enterprise:PER_MINUTE:PER_DAY`);
    // Checked here too, so that the message names the variable the operator wrote, not a library option.
    if (!PLAN_NAMES.includes(plan as PlanName))
      throw new TypeError(`${where} has unknown plan ${JSON.stringify(plan)}; use free, pro, business or enterprise`);
    if (!isWellFormedKey(key)) {
      throw new TypeError(
        `${where} has a key that is not ${MIN_KEY_LENGTH} to ${MAX_KEY_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / followed by any number of "="`,
      );
    }
    const spec: KeySpec = { key, plan: plan as PlanName, name: `${source} #${index + 1}` };
    if (perMinute !== undefined || perDay !== undefined) {
      if (!/^[1-9][0-9]*$/.test(perMinute ?? '') || !/^[1-9][0-9]*$/.test(perDay ?? '')) {
        throw new TypeError(
          `${where} needs two positive whole numbers after the plan; write KEY:enterprise:PER_MINUTE:PER_DAY`,
        );
      }
      spec.perMinute = Number(perMinute);
      spec.perDay = Number(perDay);
    }
    specs.push(spec);
  });
  return specs;
}

/** Turns key specs into key records (hash only); throws a TypeError naming the spec at fault. */
export function keysFromSpecs(specs: readonly KeySpec[], source: string): ApiKey[] {
  if (!Array.isArray(specs))
    throw new TypeError(`${source} must be a list of keys such as [{ key: "...", plan: "pro" }]`);
  const keys = specs.map((spec, index) => {
    const where = `${source} key ${index + 1}`;
    if (typeof spec !== 'object' || spec === null)
      throw new TypeError(`${where} must be an object such as { key: "...", plan: "pro" }`);
    assertKnownOptions(spec, KEY_SPEC_FIELDS, `keys[${index}].`);
    if (typeof spec.key !== 'string' || !isWellFormedKey(spec.key)) {
      throw new TypeError(
        `${where} must be ${MIN_KEY_LENGTH} to ${MAX_KEY_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / followed by any number of "="`,
      );
    }
    const plan = spec.plan ?? 'free';
    if (!PLAN_NAMES.includes(plan))
      throw new TypeError(`${where} has unknown plan ${JSON.stringify(plan)}; use free, pro, business or enterprise`);
    const custom =
      spec.perMinute !== undefined || spec.perDay !== undefined
        ? { perMinute: spec.perMinute ?? Number.NaN, perDay: spec.perDay ?? Number.NaN }
        : undefined;
    if (plan !== 'enterprise' && custom !== undefined)
      throw new TypeError(`${where}: custom limits are for the enterprise plan only`);
    let limits: Limits;
    try {
      limits = limitsOf(plan, custom);
    } catch (error) {
      throw new TypeError(`${where}: ${(error as Error).message}`);
    }
    const hash = hashKey(spec.key);
    return {
      id: `cfg_${hash.slice(7, 15)}`,
      name: spec.name ?? where,
      plan,
      perMinute: limits.perMinute,
      perDay: limits.perDay,
      hash,
      createdAt: '',
      revokedAt: null,
    };
  });
  assertDistinctIds(keys, source);
  return keys;
}

/**
 * A key's id names its limits and owns its webhook subscriptions, so two keys must never share one: the
 * same key given twice (with which plan?), or two keys whose hashes begin alike (the id keeps 32 bits).
 */
function assertDistinctIds(keys: readonly ApiKey[], source: string): void {
  const firstWithId = new Map<string, number>();
  keys.forEach((key, index) => {
    const first = firstWithId.get(key.id);
    if (first === undefined) {
      firstWithId.set(key.id, index);
      return;
    }
    const earlier = `${source} key ${first + 1}`;
    throw new TypeError(
      (keys[first] as ApiKey).hash === key.hash
        ? `${source} key ${index + 1} repeats the key of ${earlier}; give each key once`
        : `${source} key ${index + 1} would share the id ${key.id} with ${earlier} (their hashes begin alike); replace one of them`,
    );
  });
}
