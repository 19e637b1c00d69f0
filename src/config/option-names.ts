// Unknown option names are a programmer's mistake: a TypeError that names the slip and what
// was probably meant, rather than an option silently ignored.

/**
 * Throws a TypeError for the first name of `options` that is not in `known`, naming it and the
 * closest known names (or all of them when none is close). `prefix` is put before every name, for
 * an object nested in the options (`limits.`).
 */
export function assertKnownOptions(options: object, known: readonly string[], prefix = ''): void {
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue;
    const closest = closestNames(name, known);
    const hint =
      closest.length > 0
        ? `did you mean ${closest.map((candidate) => prefix + candidate).join(' or ')}?`
        : `the options are ${[...known]
            .sort()
            .map((candidate) => prefix + candidate)
            .join(', ')}`;
    throw new TypeError(`unknown option ${prefix}${name}; ${hint}`);
  }
}

/**
 * Names that `name` is probably a slip for: one starts with the other, or a few edits apart (case
 * aside). `maxEdits` defaults to a third of the name's length: "dataDri" finds dataDir, "log" alone
 * finds nothing by edits. Random names such as key ids need fewer, or unrelated ones pass for slips.
 */
export function closestNames(
  name: string,
  known: readonly string[],
  maxEdits = Math.max(1, Math.floor(name.length / 3)),
): string[] {
  const lower = name.toLowerCase();
  return known.filter((candidate) => {
    const other = candidate.toLowerCase();
    return other.startsWith(lower) || lower.startsWith(other) || editDistance(lower, other) <= maxEdits;
  });
}

/** Edits turning `a` into `b`: insertions, deletions, substitutions and swaps of neighbours ("prot" is one from "port"). */
function editDistance(a: string, b: string): number {
  // Optimal string alignment: Levenshtein's rows, plus a look two rows back for a swap.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      let best = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
