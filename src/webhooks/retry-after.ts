// Reading a webhook receiver's Retry-After (RFC 9110 §10.2.3): `delay-seconds` or an HTTP-date in
// any of the three forms that §5.6.7 obliges a recipient to accept. Strict, because the value comes
// from any server on the internet: Date.parse would also take "Dec 25 2030" or even "1 2 3", and
// reads the asctime form in the host's local time zone. Pure: the current time is an argument.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '([0-9]{2}):([0-9]{2}):([0-9]{2})';

// RFC 9110 §5.6.7, the preferred form: "Sun, 06 Nov 1994 08:49:37 GMT".
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), ([0-9]{2}) ${MONTH} ([0-9]{4}) ${TIME} GMT$`);
// The obsolete RFC 850 form, two-digit year: "Sunday, 06-Nov-94 08:49:37 GMT".
const RFC850_DATE = new RegExp(
  `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), ([0-9]{2})-${MONTH}-([0-9]{2}) ${TIME} GMT$`,
);
// ANSI C's asctime() form, in UTC though it says so nowhere: "Sun Nov  6 08:49:37 1994".
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ([0-9 ][0-9]) ${TIME} ([0-9]{4})$`);
// delay-seconds = 1*DIGIT. A minus sign is not valid, but "-5" can only mean "no wait", so it is read as 0.
const DELAY_SECONDS = /^(-?)([0-9]+)$/;

/**
 * Unix milliseconds of a UTC date and time, or undefined when a field is out of range (30 February,
 * 25:00). A second of 60 is allowed: the grammar has room for a leap second.
 */
function utcMs(year: number, monthIndex: number, day: number, hour: number, minute: number, second: number) {
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const ms = Date.UTC(year, monthIndex, day, hour, minute, second);
  const date = new Date(ms);
  return date.getUTCFullYear() === year && date.getUTCMonth() === monthIndex && date.getUTCDate() === day
    ? ms
    : undefined;
}

/**
 * RFC 9110 §5.6.7: a two-digit year that would be more than 50 years in the future is the most
 * recent past year with those last two digits.
 */
function fullYearOf(twoDigitYear: number, nowMs: number): number {
  const currentYear = new Date(nowMs).getUTCFullYear();
  const year = currentYear - (currentYear % 100) + twoDigitYear;
  return year > currentYear + 50 ? year - 100 : year;
}

/** Unix milliseconds of an HTTP-date in any of its three forms, or undefined. */
export function parseHttpDateMs(value: string, nowMs: number): number | undefined {
  let match = IMF_FIXDATE.exec(value);
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match;
    return utcMs(Number(year), MONTHS.indexOf(month!), Number(day), Number(hour), Number(minute), Number(second));
  }
  match = RFC850_DATE.exec(value);
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match;
    const fullYear = fullYearOf(Number(year), nowMs);
    return utcMs(fullYear, MONTHS.indexOf(month!), Number(day), Number(hour), Number(minute), Number(second));
  }
  match = ASCTIME_DATE.exec(value);
  if (match !== null) {
    const [, month, day, hour, minute, second, year] = match;
    return utcMs(Number(year), MONTHS.indexOf(month!), Number(day), Number(hour), Number(minute), Number(second));
  }
  return undefined;
}

/**
 * The wait a Retry-After value asks for, in milliseconds from `nowMs` (Unix milliseconds): `120`
 * is 120 000; an HTTP-date is the time left until it, 0 when it has passed; a negative number of
 * seconds is 0. Undefined when there is no value or it is neither form.
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  const seconds = DELAY_SECONDS.exec(text);
  if (seconds !== null) {
    if (seconds[1] === '-') return 0;
    // Bounded so that an absurd value stays an exact number; callers cap the wait far lower anyway.
    return Math.min(Number(seconds[2]) * 1000, Number.MAX_SAFE_INTEGER);
  }
  const atMs = parseHttpDateMs(text, nowMs);
  return atMs === undefined ? undefined : Math.max(0, atMs - nowMs);
}
