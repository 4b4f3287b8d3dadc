/**
 * Which base URLs the playground may call (docs/playground.md, "Where the server may call"): an
 * http or https origin, optionally with a path prefix, never with credentials, a query or a
 * fragment. Loopback and link-local addresses are refused unless the operator opted in
 * (SERVICE_ALLOW_PRIVATE_PROVIDER_URLS); cloud metadata addresses always, since no model
 * provider lives there and they hand out the host's cloud credentials. Private LAN ranges
 * (RFC 1918, fc00::/7) are allowed: self-hosters run models on their network.
 */
import type { LookupAddress } from 'node:dns';
import { lookup } from 'node:dns/promises';
import net, { type LookupFunction } from 'node:net';
import { InvalidInputError } from '@sightline/common';

/** Addresses of the machine itself and of its link: refused unless the operator opted in. */
const LOCAL = new net.BlockList();
LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
LOCAL.addSubnet('0.0.0.0', 8, 'ipv4'); // 0.0.0.0 reaches the machine itself
LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LOCAL.addAddress('::1', 'ipv6');
LOCAL.addAddress('::', 'ipv6');
LOCAL.addSubnet('fe80::', 10, 'ipv6');

/** Cloud metadata services (AWS, GCP, Azure, Oracle: 169.254.169.254; AWS over IPv6; Alibaba). */
const METADATA = new net.BlockList();
METADATA.addAddress('169.254.169.254', 'ipv4');
METADATA.addAddress('169.254.170.2', 'ipv4'); // AWS ECS task credentials
METADATA.addAddress('100.100.100.200', 'ipv4');
METADATA.addAddress('fd00:ec2::254', 'ipv6');
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

export type AddressKind = 'metadata' | 'local' | 'public';

/** What an IP address literal is; a host name is 'public' here (its addresses are checked when called). */
export function addressKind(host: string): AddressKind {
  const name = host
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (METADATA_NAMES.has(name)) return 'metadata';
  if (name === 'localhost' || name.endsWith('.localhost')) return 'local';
  const family = net.isIP(name);
  if (family === 0) return 'public';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  // BlockList matches IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) against the IPv4 ranges too.
  if (METADATA.check(name, type)) return 'metadata';
  if (LOCAL.check(name, type)) return 'local';
  return 'public';
}

/** Refusal of a host of the given kind, or null when it may be called. */
function hostProblem(kind: AddressKind, allowLocal: boolean): string | null {
  if (kind === 'metadata') return 'a cloud metadata address, which the server never calls';
  if (kind === 'local' && !allowLocal) {
    return 'a loopback or link-local address; an operator may allow those with SERVICE_ALLOW_PRIVATE_PROVIDER_URLS=true';
  }
  return null;
}

/**
 * The base URL if it may be called, else a 422 naming the setting and what is wrong. The value is
 * not echoed: it may hold credentials, and the admin who typed it knows it.
 */
export function checkedBaseUrl(name: string, value: string, allowLocal: boolean): URL {
  const refuse = (reason: string) => new InvalidInputError(`${name} ${reason}`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw refuse('must be an http:// or https:// URL such as https://api.example.com/v1');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refuse(`must be an http:// or https:// URL such as https://api.example.com/v1 (got a ${url.protocol} URL)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw refuse('must not hold a user name or password: store the key under its own setting');
  }
  if (value.includes('?') || value.includes('#')) throw refuse('must be an origin with an optional path, without a query or fragment');
  const problem = hostProblem(addressKind(url.hostname), allowLocal);
  if (problem) throw refuse(`points at ${url.hostname}, ${problem}`);
  return url;
}

/** How host names are resolved: dns.lookup's signature, with every address asked for. */
export type Resolve = (hostname: string, options: { all: true; verbatim: true }) => Promise<LookupAddress[]>;

/** dns.lookup's family option as a number (0: any). */
const familyNumber = (family: number | 'IPv4' | 'IPv6' | undefined): number =>
  family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : (family ?? 0);

/**
 * The `lookup` of the connections to a provider (net.connect's option): it resolves the host name,
 * refuses it when any of its addresses is refused (a DNS entry for 127.0.0.1, or the metadata
 * service), and hands the connection exactly the addresses it checked. Checking in the lookup
 * that connects, not in a lookup of its own before the call, leaves no moment in which the name
 * could be pointed elsewhere (DNS rebinding), and resolves once per connection instead of twice
 * per call. A failed lookup fails the connection as unreachable.
 */
export function guardedLookup(name: string, allowLocal: boolean, resolve: Resolve = lookup): LookupFunction {
  const checked = (hostname: string, family: number | undefined, addresses: LookupAddress[]): LookupAddress[] => {
    for (const { address } of addresses) {
      const problem = hostProblem(addressKind(address), allowLocal);
      if (problem) throw new InvalidInputError(`${name} points at ${hostname}, which resolves to ${address}, ${problem}`);
    }
    const usable = family ? addresses.filter((each) => each.family === family) : addresses;
    if (usable.length === 0) throw Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' });
    return usable;
  };
  return (hostname, options, callback) => {
    resolve(hostname, { all: true, verbatim: true })
      .then((addresses) => checked(hostname, familyNumber(options.family), addresses))
      .then(
        (usable) => (options.all ? callback(null, usable) : callback(null, usable[0]!.address, usable[0]!.family)),
        (error: NodeJS.ErrnoException) => callback(error, []),
      );
  };
}
