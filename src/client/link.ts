// Reading a `Link` header (RFC 8288) for the target of one relation, as paging follows rel="next".

// One link-value: <target> then its parameters; a comma inside <...> or a quoted string is not a separator.
const LINK_VALUE = /<([^>]*)>((?:\s*;\s*[^;,"=\s]+(?:\s*=\s*(?:"[^"]*"|[^;,"]*))?)*)/g;
const REL_PARAM = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]+))/i;

/** The target of the first link whose `rel` includes `relation` (case-insensitive, RFC 8288 §2.1.1), or undefined. */
export function linkTarget(header: string | string[] | undefined, relation: string): string | undefined {
  if (header === undefined) return undefined;
  const wanted = relation.toLowerCase();
  for (const value of Array.isArray(header) ? header : [header]) {
    for (const match of value.matchAll(LINK_VALUE)) {
      const rel = REL_PARAM.exec(match[2] ?? '');
      // rel may name several relations separated by white space (RFC 8288 §3.3).
      const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
      if (relations.includes(wanted)) return match[1];
    }
  }
  return undefined;
}
