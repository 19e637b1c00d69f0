// The socket edge of webhook delivery: an undici connector that opens a connection only to addresses
// the address policy allows. A literal IP host is checked as it is; a name is resolved once, every
// address of the answer is checked, and the socket is connected to exactly those addresses, so a
// second DNS answer (a rebinding attack) cannot slip in between the check and the connect.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { buildConnector } from 'undici';
import { type AddressRule, classifyAddress } from './address-policy.js';

/** A DNS resolver with the signature of `dns.lookup(hostname, { all: true }, callback)`. */
export type LookupAll = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** A connection refused because its address is one the address policy refuses. */
export class AddressRefusedError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_REFUSED';
  readonly address: string;
  readonly rule: AddressRule;

  constructor(address: string, rule: AddressRule) {
    super(`address ${address} is ${rule}, which webhooks may not reach`);
    this.name = 'AddressRefusedError';
    this.address = address;
    this.rule = rule;
  }
}

/** A name that did not resolve (or resolved to nothing); `code` is the resolver's (`ENOTFOUND`...). */
export class DnsLookupError extends Error {
  readonly code: string;

  constructor(hostname: string, code: string) {
    super(`DNS lookup failed for ${hostname} (${code})`);
    this.name = 'DnsLookupError';
    this.code = code;
  }
}

/**
 * The refusal of the first refused address of `addresses`, or undefined when all are allowed.
 * One refused address refuses them all: the check applies to every resolved address, and a name that
 * mixes public and internal addresses is either misconfigured or an attack; connecting to its public
 * ones alone would make delivery depend on the resolver's order.
 */
export function firstRefusedAddress(
  addresses: readonly string[],
  allowPrivate: boolean,
): AddressRefusedError | undefined {
  if (allowPrivate) return undefined;
  for (const address of addresses) {
    const rule = classifyAddress(address);
    if (rule !== undefined) return new AddressRefusedError(address, rule);
  }
  return undefined;
}

/** What the connector needs: the operator's setting, the resolver, and how long a connect may take. */
export interface GuardedConnectorOptions {
  readonly allowPrivate: boolean;
  readonly lookup: LookupAll;
  /** Resolution, TCP and TLS handshakes together. */
  readonly connectTimeoutMs: number;
}

/** The `lookup` that node:net and node:tls call for a name: resolve, check every address, answer only those. */
function guardedLookup(lookup: LookupAll, allowPrivate: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    lookup(hostname, { all: true }, (error, addresses) => {
      if (error !== null || addresses.length === 0) {
        callback(new DnsLookupError(hostname, error?.code ?? 'ENODATA'), '');
        return;
      }
      const refusal = firstRefusedAddress(
        addresses.map((entry) => entry.address),
        allowPrivate,
      );
      if (refusal !== undefined) {
        callback(refusal, '');
        return;
      }
      // Node asks for every address when it races IPv6 against IPv4 (autoSelectFamily), else for one.
      const [first] = addresses as [LookupAddress, ...LookupAddress[]];
      if (options.all === true) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * An undici connector (the `connect` option of an Agent) that connects only to allowed addresses and
 * fails with an AddressRefusedError naming the rule otherwise. For https the TLS server name (SNI and
 * the certificate check) stays the URL's host name, as without the guard.
 */
export function createGuardedConnector(options: GuardedConnectorOptions): buildConnector.connector {
  const connector = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup(options.lookup, options.allowPrivate),
  });
  return (connectOptions, callback) => {
    // undici passes IPv6 hosts without brackets; node:net does not call `lookup` for a literal address.
    if (isIP(connectOptions.hostname) !== 0) {
      const refusal = firstRefusedAddress([connectOptions.hostname], options.allowPrivate);
      if (refusal !== undefined) {
        // Asynchronously, as undici's own connector reports its failures.
        queueMicrotask(() => callback(refusal, null));
        return;
      }
    }
    connector(connectOptions, callback);
  };
}
