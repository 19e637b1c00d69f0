// The plans of README "Keys and plans" and README "Rate limits" and their two limits per key: requests per minute and
// requests per day. Enterprise keys carry custom numbers, so it has no entry in PLAN_LIMITS.

/** A plan a key can be on. */
export type PlanName = 'free' | 'pro' | 'business' | 'enterprise';

/** A key's two limits: the capacities of its minute and day buckets. */
export interface Limits {
  perMinute: number;
  perDay: number;
}

/** The window the minute bucket refills over, in ms (README "Rate limits": "refilled continuously over 60 s"). */
export const MINUTE_MS = 60_000;
/** The window the day bucket refills over, in ms (README "Rate limits": "over 86,400 s"). */
export const DAY_MS = 86_400_000;

/** The fixed limits of each plan but enterprise (README "Keys and plans"). */
export const PLAN_LIMITS: Readonly<Record<Exclude<PlanName, 'enterprise'>, Readonly<Limits>>> = Object.freeze({
  free: Object.freeze({ perMinute: 60, perDay: 1_000 }),
  pro: Object.freeze({ perMinute: 300, perDay: 10_000 }),
  business: Object.freeze({ perMinute: 1_000, perDay: 100_000 }),
});

/** Whether `value` is a usable limit: a whole number of requests, at least 1. */
export function isLimit(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
}

/** The limits of a plan; enterprise needs its custom numbers (a TypeError otherwise, a programmer error). */
export function limitsOf(plan: PlanName, custom?: Limits): Limits {
  if (plan === 'enterprise') {
    if (custom === undefined) throw new TypeError('an enterprise key needs custom perMinute and perDay limits');
    assertLimits(custom);
    return { perMinute: custom.perMinute, perDay: custom.perDay };
  }
  const limits = PLAN_LIMITS[plan];
  if (limits === undefined) throw new TypeError(`unknown plan ${JSON.stringify(plan)}`);
  return limits;
}

/** Throws a TypeError unless both limits are whole numbers of at least 1. */
export function assertLimits(limits: Limits): void {
  if (!isLimit(limits.perMinute)) {
    throw new TypeError(`perMinute must be a whole number of requests of at least 1; got ${String(limits.perMinute)}`);
  }
  if (!isLimit(limits.perDay)) {
    throw new TypeError(`perDay must be a whole number of requests of at least 1; got ${String(limits.perDay)}`);
  }
}
