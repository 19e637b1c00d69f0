// What can be wrong with a key operation, as data: a code, and the plan, limit, id or length at fault.
// The key operations speak of plans and limits; whoever asked (the command line, a program) words the
// problem for its own audience, so the message here is a plain default, never a flag or a command.
import { MAX_KEY_LENGTH, MIN_KEY_LENGTH, PLAN_NAMES, type PlanName } from './api-key.js';

/** The two limits of a key, by the name its record gives them. */
export type LimitName = 'perMinute' | 'perDay';

/** Each problem with what it is about. */
export type KeyProblemDetail =
  /** A request for a key on a plan that does not exist. */
  | { code: 'unknown_plan'; plan: string }
  /** Custom limits asked for on a plan with fixed ones (only enterprise takes them). */
  | { code: 'custom_limits_not_allowed'; plan: Exclude<PlanName, 'enterprise'> }
  /** An enterprise key asked for without both of its limits. */
  | { code: 'enterprise_needs_limits'; missing: LimitName[] }
  /** A limit that is not a whole number of requests of at least 1. */
  | { code: 'invalid_limit'; limit: LimitName; value: number }
  /** No key has this id. */
  | { code: 'unknown_id'; id: string }
  /** Not a bearer token at all (length or characters). */
  | { code: 'malformed_key' }
  /** Shaped like a generated key, but of another length: cut short or with extra characters. */
  | { code: 'wrong_length'; length: number; expected: number }
  /** A generated key whose checksum does not match: mistyped. */
  | { code: 'bad_checksum' }
  /** Well-formed, but no stored key has this value. */
  | { code: 'unknown_key' }
  /** The key exists and was revoked. */
  | { code: 'revoked'; id: string; revokedAt: string };

export type KeyProblemCode = KeyProblemDetail['code'];

const LIMIT_WORDS: Readonly<Record<LimitName, string>> = { perMinute: 'per-minute', perDay: 'per-day' };

/** The default wording of a problem, in the terms of keys, plans and limits. */
function describe(detail: KeyProblemDetail): string {
  switch (detail.code) {
    case 'unknown_plan':
      return `there is no plan "${detail.plan}"; the plans are ${PLAN_NAMES.join(', ')}`;
    case 'custom_limits_not_allowed':
      return `custom limits are for the enterprise plan only; the ${detail.plan} plan has fixed limits`;
    case 'enterprise_needs_limits':
      return `the enterprise plan needs both limits, per minute and per day; missing: ${detail.missing.map((name) => LIMIT_WORDS[name]).join(' and ')}`;
    case 'invalid_limit':
      return `the ${LIMIT_WORDS[detail.limit]} limit must be a whole number of requests of at least 1, not ${detail.value}`;
    case 'unknown_id':
      return `no key has id "${detail.id}"`;
    case 'malformed_key':
      return `this is not a well-formed key: ${MIN_KEY_LENGTH} to ${MAX_KEY_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + /, then any "="`;
    case 'wrong_length':
      return `this looks like a generated key but has ${detail.length} characters, not ${detail.expected}: it was cut short or has extra characters; copy it again from where it was first shown`;
    case 'bad_checksum':
      return 'this key fails its checksum: it was mistyped; copy it again from where it was first shown';
    case 'unknown_key':
      return 'no stored key has this value';
    case 'revoked':
      return `key ${detail.id} was revoked at ${detail.revokedAt}`;
  }
}

/** A key operation that cannot be done, and why: a person's mistake to report, not a bug. */
export class KeyProblem extends Error {
  override name = 'KeyProblem';
  readonly detail: KeyProblemDetail;

  constructor(detail: KeyProblemDetail) {
    super(describe(detail));
    this.detail = detail;
  }
}
