// The key operations: create a key (shown once; only its hash is kept), create the first key of a new
// installation, list, revoke, and check a key a person holds. They work on any store's key table, so
// the keys of a data directory and of a database are managed alike, and a running service picks the
// changes up by watching the table. A request that cannot be done is a KeyProblem naming the plan,
// limit, id or key at fault; the caller words it for its audience.
import type { Clock } from '../core/clock.js';
import { isLimit, type Limits, limitsOf } from '../limits/index.js';
import {
  type ApiKey,
  GENERATED_KEY_LENGTH,
  generateKey,
  hashKey,
  hasValidChecksum,
  isWellFormedKey,
  KEY_PREFIX,
  newKeyId,
  PLAN_NAMES,
  type PlanName,
} from './api-key.js';
import { KeyProblem, type LimitName } from './key-problem.js';
import type { KeyTable } from './key-table.js';

/** What creating a key takes: a plan, and for enterprise its two limits. */
export interface NewKeyRequest {
  plan: string;
  perMinute?: number | undefined;
  perDay?: number | undefined;
  name?: string | undefined;
}

/** A key just made: the key itself (shown once, never stored) and its record. */
export interface CreatedKey {
  key: string;
  record: ApiKey;
}

/** The plan and name of the key a new installation starts with. */
const FIRST_KEY = { plan: 'free', name: 'first key' } as const;

/** The operations on API keys. */
export class KeyService {
  readonly #table: KeyTable;
  readonly #clock: Clock;

  constructor(table: KeyTable, clock: Clock) {
    this.#table = table;
    this.#clock = clock;
  }

  /** Creates a key; the key itself is returned once and never stored. A KeyProblem for a bad plan or limits. */
  async create(request: NewKeyRequest): Promise<CreatedKey> {
    const { plan, limits } = checkNewKey(request);
    const created = await this.#newKey(plan, limits, request.name ?? '');
    await this.#table.add(created.record);
    return created;
  }

  /**
   * Creates the first key of an installation (free plan) unless some key is active, as one step: of
   * instances starting at once on one empty store, one makes it. The key, or undefined when none was made.
   */
  async createFirst(): Promise<string | undefined> {
    const created = await this.#newKey(FIRST_KEY.plan, limitsOf(FIRST_KEY.plan), FIRST_KEY.name);
    return (await this.#table.addIfNoneActive(created.record)) ? created.key : undefined;
  }

  /** Every key, revoked ones included. */
  list(): Promise<ApiKey[]> {
    return this.#table.list();
  }

  /** Revokes key `id`; a revoked key keeps its first revocation time. A KeyProblem when there is no such key. */
  async revoke(id: string): Promise<ApiKey> {
    const revoked = await this.#table.revoke(id, new Date(this.#clock.now()).toISOString());
    if (revoked === undefined) throw new KeyProblem({ code: 'unknown_id', id });
    return revoked;
  }

  /**
   * The active key whose value is `key`; otherwise a KeyProblem saying what is wrong with it. The
   * checksum is checked first, offline: it is what tells a mistyped key from a revoked one.
   */
  async check(key: string): Promise<ApiKey> {
    if (!isWellFormedKey(key)) throw new KeyProblem({ code: 'malformed_key' });
    if (key.startsWith(KEY_PREFIX) && key.length !== GENERATED_KEY_LENGTH) {
      throw new KeyProblem({ code: 'wrong_length', length: key.length, expected: GENERATED_KEY_LENGTH });
    }
    if (hasValidChecksum(key) === false) throw new KeyProblem({ code: 'bad_checksum' });
    const hash = hashKey(key);
    const found = (await this.#table.list()).find((entry) => entry.hash === hash);
    if (found === undefined) throw new KeyProblem({ code: 'unknown_key' });
    if (found.revokedAt !== null) throw new KeyProblem({ code: 'revoked', id: found.id, revokedAt: found.revokedAt });
    return found;
  }

  /** A new key and its record, with an id no stored key has: the one place a key record is made. */
  async #newKey(plan: PlanName, limits: Limits, name: string): Promise<CreatedKey> {
    const existing = new Set((await this.#table.list()).map((entry) => entry.id));
    let id = newKeyId();
    while (existing.has(id)) id = newKeyId();
    const key = generateKey();
    const record: ApiKey = {
      id,
      name,
      plan,
      perMinute: limits.perMinute,
      perDay: limits.perDay,
      hash: hashKey(key),
      createdAt: new Date(this.#clock.now()).toISOString(),
      revokedAt: null,
    };
    return { key, record };
  }
}

/** The plan and limits `request` asks for; a KeyProblem when they cannot be had. Needs no store. */
export function checkNewKey(request: NewKeyRequest): { plan: PlanName; limits: Limits } {
  const plan = planOf(request.plan);
  return { plan, limits: limitsFor(plan, request) };
}

/** `text` as a plan, or the KeyProblem of an unknown one. */
function planOf(text: string): PlanName {
  if (!PLAN_NAMES.includes(text as PlanName)) throw new KeyProblem({ code: 'unknown_plan', plan: text });
  return text as PlanName;
}

/** The limits a request gets on `plan`: the plan's own, or for enterprise the two it names. */
function limitsFor(plan: PlanName, request: NewKeyRequest): Limits {
  const { perMinute, perDay } = request;
  if (plan !== 'enterprise') {
    if (perMinute !== undefined || perDay !== undefined)
      throw new KeyProblem({ code: 'custom_limits_not_allowed', plan });
    return limitsOf(plan);
  }
  if (perMinute === undefined || perDay === undefined) {
    const missing: LimitName[] = [];
    if (perMinute === undefined) missing.push('perMinute');
    if (perDay === undefined) missing.push('perDay');
    throw new KeyProblem({ code: 'enterprise_needs_limits', missing });
  }
  if (!isLimit(perMinute)) throw new KeyProblem({ code: 'invalid_limit', limit: 'perMinute', value: perMinute });
  if (!isLimit(perDay)) throw new KeyProblem({ code: 'invalid_limit', limit: 'perDay', value: perDay });
  return limitsOf(plan, { perMinute, perDay });
}
