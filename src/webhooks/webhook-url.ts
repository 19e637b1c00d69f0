// The check of a webhook URL when a subscription is made or changed: an absolute http or https URL
// without credentials or fragment, of bounded length, whose host is no address (or localhost name)
// that the address policy refuses. Pure: names other than localhost are resolved, and their addresses
// checked, at each delivery.
import { isIP } from 'node:net';
import { classifyAddress } from './address-policy.js';

/** The longest URL accepted, before and after normalisation, in characters. */
export const MAX_WEBHOOK_URL_CHARS = 2048;

/** The URL to store (the WHATWG serialisation), or why it is refused, as a 400 message can quote it. */
export type WebhookUrlCheck =
  { readonly ok: true; readonly url: string } | { readonly ok: false; readonly reason: string };

/** What the operator opened: `allowPrivate` accepts every address the address policy refuses. */
export interface WebhookUrlPolicy {
  readonly allowPrivate: boolean;
}

/** The IP address a URL hostname names, without IPv6 brackets, or undefined for a domain name. */
export function hostAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) === 0 ? undefined : bare;
}

/** RFC 6761 §6.3: `localhost` and every name under it resolve to loopback; a final dot changes nothing. */
export function isLocalhostName(hostname: string): boolean {
  const name = (hostname.endsWith('.') ? hostname.slice(0, -1) : hostname).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Whether the authority of `raw`, as sent, holds a userinfo part (before an '@'). The parser drops an
 * empty one (`https://@host/`, `https://:@host/`), so the parsed URL cannot tell; a URL that was sent
 * with credentials, even empty ones, is refused as sent, not stored without them.
 */
function sendsUserinfo(raw: string): boolean {
  // The scheme has no ':'; the authority follows its slashes (the parser takes '\' for '/' in http
  // and https) and ends at the path, the query or the fragment.
  const afterScheme = raw.slice(raw.indexOf(':') + 1).replace(/^[\\/\t\n\r]*/, '');
  const end = afterScheme.search(/[\\/?#]/);
  return (end === -1 ? afterScheme : afterScheme.slice(0, end)).includes('@');
}

/**
 * Checks the `url` of a subscription. The WHATWG URL parser normalises the host first, so the other
 * spellings of an IPv4 address (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) are judged as the
 * dotted address they mean, and an IPv6 one in its compressed form.
 */
export function validateWebhookUrl(raw: string, policy: WebhookUrlPolicy): WebhookUrlCheck {
  const tooLong = `url must be at most ${MAX_WEBHOOK_URL_CHARS} characters`;
  if (raw.length > MAX_WEBHOOK_URL_CHARS) return { ok: false, reason: tooLong };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: 'url must be an absolute http or https URL' };
  }
  if (url.username !== '' || url.password !== '' || sendsUserinfo(raw)) {
    return { ok: false, reason: 'url must not contain a user name or password' };
  }
  // `hash` is empty for a bare trailing '#' too; '#' cannot appear in a serialised URL otherwise.
  if (url.href.includes('#')) return { ok: false, reason: 'url must not contain a fragment' };
  if (url.hostname === '') return { ok: false, reason: 'url must name a host' };
  // Port 0 parses, but no connection can be made to it (RFC 6335 §6: reserved).
  if (url.port === '0') return { ok: false, reason: 'url must not name port 0, which nothing can listen on' };
  // Percent-encoding can make the stored form longer than what was sent.
  if (url.href.length > MAX_WEBHOOK_URL_CHARS) return { ok: false, reason: tooLong };
  if (policy.allowPrivate) return { ok: true, url: url.href };

  const address = hostAddress(url.hostname);
  if (address !== undefined) {
    const rule = classifyAddress(address);
    if (rule !== undefined) {
      return { ok: false, reason: `url must not name an address webhooks may not reach: ${address} is ${rule}` };
    }
  } else if (isLocalhostName(url.hostname)) {
    return { ok: false, reason: 'url must not name localhost, which resolves to loopback' };
  }
  return { ok: true, url: url.href };
}
