/**
 * Which base URLs the playground may call (docs/playground.md, "Where the server may call"): an
 * http or https origin, optionally with a path prefix, never with credentials, a query or a
 * fragment. Loopback and link-local addresses are refused unless the operator opted in
 * (SERVICE_ALLOW_PRIVATE_PROVIDER_URLS); cloud metadata addresses always, since no model
 * provider lives there and they hand out the host's cloud credentials. Private LAN ranges
 * (RFC 1918, fc00::/7) are allowed: self-hosters run models on their network.
 */
import { lookup } from 'node:dns/promises';
import net from 'node:net';
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

/**
 * Checks the addresses a host name resolves to, just before a call: a name may point at a
 * refused address (a DNS entry for 127.0.0.1, or the metadata service). A failed lookup is left
 * to the call itself, which then fails as unreachable.
 */
export async function checkResolvedHost(name: string, hostname: string, allowLocal: boolean): Promise<void> {
  if (net.isIP(hostname.replace(/^\[|\]$/g, '')) !== 0) return; // literals were checked with the URL
  let addresses: { address: string }[];
  try {
    addresses = await lookup(hostname, { all: true, verbatim: true });
  } catch {
    return;
  }
  for (const { address } of addresses) {
    const problem = hostProblem(addressKind(address), allowLocal);
    if (problem) throw new InvalidInputError(`${name} points at ${hostname}, which resolves to ${address}, ${problem}`);
  }
}
