import ipaddr from 'ipaddr.js';
import type { DeploymentKey } from '../eventstore/index.js';

/**
 * The client a per-client limit counts, as stored: a keyed digest of its address. The log is
 * append-only and kept for good, and a plain hash of an IPv4 address is reversed by hashing all
 * 2^32 of them; the digest's key comes from the data key, which never enters the log, so the log
 * tells clients apart without holding anything that gives their addresses back. Each limit names
 * its own purpose, so the digests of one capability cannot be matched with another's.
 *
 * The address is what fastify derived (request.ip: the socket's peer, or the forwarded client
 * when SVC_TRUST_PROXY trusts the proxy). An IPv6 client counts by its /64 network, since one host
 * commonly holds a whole /64; an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function clientDigest(key: DeploymentKey, purpose: 'trial-client' | 'sign-in-client', address: string): string {
  return key.digest(purpose, clientOf(address));
}

function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`).toString()}/64`;
}
