// JSON text to a value, with numbers kept honest: JSON.parse rounds a literal to the nearest double,
// so `1.0000000000000001` or `4503599627370496.5` would arrive as an integer although the JSON value
// the client sent is not one. Every number a request body may hold is an integer (docs/api.md, "Pets":
// a JSON number whose value is an integer), so such a literal is read as a number that is not an
// integer, and validation refuses it as it refuses `3.5`.

/**
 * A literal can round to an integer without being one only with 16 significant digits or more (any
 * decimal of at most 15 digits survives the trip to a double and back), or when it is so small that it
 * underflows to 0, which no integer field here takes. A body without such a run of digits (nearly
 * every body) is parsed once, with no second look.
 */
const LONG_DIGIT_RUN = /[0-9][0-9.]{15}/;

/** Whole JSON strings (skipped) or number literals, in a text JSON.parse has already accepted. */
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

/** What a literal that JSON.parse would round to an integer is read as instead: a non-integer. */
const NOT_AN_INTEGER = '0.5';

/** Parses JSON text as JSON.parse does, but a number literal whose exact value is not an integer stays one. */
export function parseJsonText(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!LONG_DIGIT_RUN.test(text)) return value;
  let changed = false;
  const honest = text.replace(STRING_OR_NUMBER, (token) => {
    if (token.charCodeAt(0) === 0x22 /* " */ || !roundsToFalseInteger(token)) return token;
    changed = true;
    return NOT_AN_INTEGER;
  });
  return changed ? (JSON.parse(honest) as unknown) : value;
}

/** Does JSON.parse read `literal` as an integer although its exact decimal value is not one? */
export function roundsToFalseInteger(literal: string): boolean {
  return Number.isInteger(Number(literal)) && !isExactInteger(literal);
}

/** Is the exact decimal value of the JSON number `literal` an integer? */
export function isExactInteger(literal: string): boolean {
  const match = /^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(literal);
  if (match === null) return false;
  const fraction = match[2] ?? '';
  const significant = `${match[1]}${fraction}`.replace(/^0+/, '');
  const trimmed = significant.replace(/0+$/, '');
  if (trimmed === '') return true; // zero
  // The value is trimmed × 10^scale: an integer when the scale is not negative.
  const scale = Number(match[3] ?? '0') - fraction.length + (significant.length - trimmed.length);
  return scale >= 0;
}
