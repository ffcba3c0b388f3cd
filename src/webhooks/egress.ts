import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Agent, buildConnector } from 'undici';
import type { ResourceDeclaration } from '../capability.js';
import type { Config } from '../config.js';
import { TRANSPORT_TIMEOUT_MS } from './retryPolicy.js';

/**
 * Where webhook requests may go. Every connection resolves the host itself and checks the address
 * it is about to connect to, so a name that resolves to a private address (or starts to, between
 * registration and delivery: DNS rebinding) is refused at connect time. An undici `lookup` hook is
 * not enough: it is never called for IP literals.
 */

/** `public`: the default, only globally routable unicast. `loopback`: tests only, 127.0.0.1 on any port. */
export type EgressPolicy = 'public' | 'loopback';

export const policyOf = (config: Pick<Config, 'webhookTestEgress'>): EgressPolicy => (config.webhookTestEgress === 'loopback' ? 'loopback' : 'public');

declare module '../serviceContext.js' {
  interface Resources {
    /** Where webhook requests go (the verification challenge, every delivery): each connection to an address checked public. */
    egress: Agent;
  }
}

/** Resolves a host name to the addresses a connection may use. */
export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** The connection was refused by the egress policy; nothing was sent. */
class EgressRefused extends Error {
  readonly code = 'SVC_EGRESS_REFUSED';
  constructor(readonly address: string) {
    super(`egress to ${address} is refused: not a public address`);
    this.name = 'EgressRefused';
  }
}

/** The host name did not resolve; nothing was sent. */
class ResolutionFailed extends Error {
  readonly code = 'SVC_DNS_FAILED';
  constructor(readonly hostname: string, cause: unknown) {
    super(`${hostname} did not resolve: ${(cause as Error).message}`);
    this.name = 'ResolutionFailed';
  }
}

// IPv4-compatible IPv6 (::a.b.c.d, deprecated) classifies as plain unicast in ipaddr.js.
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
// NAT64 well-known prefix: allowed only when the embedded IPv4 address is itself public.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN)) {
    const [high = 0, low = 0] = v6.parts.slice(6);
    return ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]).range() === 'unicast';
  }
  // Everything ipaddr.js names (private, loopback, linkLocal, multicast, uniqueLocal, ipv4Mapped,
  // 6to4, teredo, reserved and documentation, ...) is refused: only plain unicast passes.
  return v6.range() === 'unicast' && !v6.match(IPV4_COMPATIBLE);
}

/** Whether a connection to this IP address (no brackets) and port is allowed under the policy. */
export function addressAllowed(address: string, port: number, policy: EgressPolicy): boolean {
  if (!ipaddr.isValid(address) || isIP(address) === 0) return false;
  if (policy === 'loopback') return address === '127.0.0.1';
  return port === 443 && isPublic(ipaddr.parse(address));
}

/** A URL's hostname without the brackets of an IPv6 literal. */
export const unbracket = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

/** Node reads NODE_EXTRA_CA_CERTS once at start; reading it here also honors a later setting (tests). */
function trustedAuthorities(): string[] | undefined {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  return extra ? [...rootCertificates, readFileSync(extra, 'utf8')] : undefined;
}

export interface EgressOptions {
  policy: EgressPolicy;
  resolve?: Resolver;
  /**
   * Tests only: the port every connection is made to, whatever the URL's (always 443 for a host
   * name), so that a registered name can reach a test receiver on its own port.
   */
  connectPort?: number;
}

/** An undici dispatcher whose every connection is resolved and checked by the policy first. */
export function createEgress(options: EgressOptions): Agent {
  const resolve = options.resolve ?? systemResolver;
  const ca = trustedAuthorities();
  const tlsConnect = buildConnector({ timeout: TRANSPORT_TIMEOUT_MS, ...(ca ? { ca } : {}) });
  return new Agent({
    headersTimeout: TRANSPORT_TIMEOUT_MS,
    bodyTimeout: TRANSPORT_TIMEOUT_MS,
    connect(target, callback) {
      const hostname = unbracket(target.hostname);
      const port = Number(target.port || 443);
      if (target.protocol !== 'https:') return callback(new EgressRefused(`${target.protocol}//${hostname}`), null);
      const candidates = isIP(hostname) ? Promise.resolve([hostname]) : resolve(hostname).catch((error: unknown) => Promise.reject(new ResolutionFailed(hostname, error)));
      candidates.then(
        (addresses) => {
          const address = addresses.find((a) => addressAllowed(a, port, options.policy));
          if (!address) return callback(new EgressRefused(addresses.join(', ') || hostname), null);
          // Connect to the checked address; the certificate is still checked against the host name.
          const connectTo = options.connectPort === undefined ? target.port : String(options.connectPort);
          tlsConnect({ ...target, hostname: address, port: connectTo, servername: isIP(hostname) ? undefined : hostname }, callback);
        },
        (error: Error) => callback(error, null),
      );
    },
  });
}

/** The webhooks' part of the shared context: one egress per process, under the configured policy. */
export const egressResource: ResourceDeclaration = {
  open: (config) => ({ egress: createEgress({ policy: policyOf(config) }) }),
  close: (resources) => resources.egress.close(),
};
