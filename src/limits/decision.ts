// What one admission yields: allowed or refused (with the error code of README "Errors"), and the
// rate-limit headers every API answer carries (README "Rate limits"), with lower-case names as they are sent.

/** The error codes a refusal carries (README "Errors": both are 429). */
export type RefusalCode = 'rate_limited' | 'temporarily_banned';

/** One response header: its lower-case name and its value. */
export type Header = [name: string, value: string];

/** The outcome of one admission; `headers` are ready to set on the answer (every API answer carries them). */
export interface Decision {
  allowed: boolean;
  /** Set when refused. */
  code?: RefusalCode;
  /** True on the refusal that started a ban (it is still a plain rate_limited refusal). */
  banStarted?: boolean;
  /** Set when refused: whole seconds, at least 1 (also sent as Retry-After). */
  retryAfterSeconds?: number;
  /** X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit, and Retry-After when refused. */
  headers: Header[];
}
