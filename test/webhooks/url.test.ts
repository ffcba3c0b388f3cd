import { describe, expect, it } from 'vitest';
import { addressAllowed } from '../../src/webhooks/egress.js';
import { checkWebhookUrl } from '../../src/webhooks/url.js';
import { NON_PUBLIC_HOSTS } from './support.js';

describe('webhook URL rules (default policy)', () => {
  const check = (url: string) => checkWebhookUrl(url, 'public');

  it('accepts an absolute https URL on port 443 and returns it normalized', () => {
    expect(check('https://hooks.example.com/svc?x=1')).toEqual({ url: 'https://hooks.example.com/svc?x=1' });
    expect(check('https://Hooks.Example.com:443/a')).toEqual({ url: 'https://hooks.example.com/a' });
    expect(check('https://93.184.216.34/hook')).toEqual({ url: 'https://93.184.216.34/hook' });
    expect(check('https://[2606:4700::1111]/hook')).toEqual({ url: 'https://[2606:4700::1111]/hook' });
    expect(check(`https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`)).toHaveProperty('url');
  });

  it.each([
    ['http://example.com/hook', 'not_https'],
    ['ftp://example.com/hook', 'not_https'],
    ['https://example.com:8443/hook', 'port'],
    ['https://example.com:80/hook', 'port'],
    ['https://user:pass@example.com/hook', 'credentials'],
    ['https://user@example.com/hook', 'credentials'],
    ['https://@example.com/hook', 'credentials'],
    ['https://example.com/hook#part', 'fragment'],
    ['https://example.com/hook#', 'fragment'],
    ['not a url', 'malformed'],
    ['/relative/hook', 'malformed'],
    ['', 'malformed'],
    [' https://example.com/hook', 'malformed'],
    ['https://exa\tmple.com/hook', 'malformed'],
    ['https://', 'malformed'],
    [`https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`, 'too_long'],
    ['https://localhost/hook', 'non_public_address'],
    ['https://api.localhost/hook', 'non_public_address'],
  ])('%s is refused as %s', (url, refusal) => {
    expect(check(url)).toEqual({ refusal });
  });

  it.each(NON_PUBLIC_HOSTS)('https://%s/ is refused as non_public_address', (host) => {
    expect(check(`https://${host}/hook`)).toEqual({ refusal: 'non_public_address' });
  });

  it('refuses the documentation, reserved, multicast, broadcast and translation ranges', () => {
    for (const host of ['192.0.2.1', '198.51.100.7', '203.0.113.9', '240.0.0.1', '255.255.255.255', '224.0.0.1', '[2001:db8::1]', '[ff02::1]', '[::]', '[::7f00:1]', '[2002:a00:1::]', '[64:ff9b:1::a00:1]']) {
      expect(check(`https://${host}/hook`), host).toEqual({ refusal: 'non_public_address' });
    }
  });
});

describe('the loopback test policy', () => {
  it('allows https on 127.0.0.1 on any port, and nothing else that is not public', () => {
    expect(checkWebhookUrl('https://127.0.0.1:8443/hook', 'loopback')).toEqual({ url: 'https://127.0.0.1:8443/hook' });
    expect(checkWebhookUrl('http://127.0.0.1:8443/hook', 'loopback')).toEqual({ refusal: 'not_https' });
    expect(checkWebhookUrl('https://10.0.0.1:8443/hook', 'loopback')).toEqual({ refusal: 'non_public_address' });
    expect(addressAllowed('127.0.0.1', 9, 'loopback')).toBe(true);
    expect(addressAllowed('127.0.0.2', 443, 'loopback')).toBe(false);
    expect(addressAllowed('93.184.216.34', 443, 'loopback')).toBe(false);
  });
});

describe('the connect-time address check', () => {
  it('allows public unicast on port 443 only, and NAT64 only of a public address', () => {
    expect(addressAllowed('93.184.216.34', 443, 'public')).toBe(true);
    expect(addressAllowed('93.184.216.34', 8443, 'public')).toBe(false);
    expect(addressAllowed('2606:4700::1111', 443, 'public')).toBe(true);
    expect(addressAllowed('64:ff9b::5db8:d822', 443, 'public')).toBe(true);
    expect(addressAllowed('64:ff9b::a00:1', 443, 'public')).toBe(false);
    expect(addressAllowed('not-an-address', 443, 'public')).toBe(false);
  });
});

describe('the URL rules every policy keeps', () => {
  it.each(['public', 'loopback'] as const)('under the %s policy a host name must use port 443', (policy) => {
    expect(checkWebhookUrl('https://example.com:8443/', policy)).toEqual({ refusal: 'port' });
    expect(checkWebhookUrl('https://hooks.example.test:9443/hook', policy)).toEqual({ refusal: 'port' });
    expect(checkWebhookUrl('https://localhost:8443/hook', policy)).toEqual({ refusal: 'port' });
    expect(checkWebhookUrl('https://example.com/', policy)).toEqual({ url: 'https://example.com/' });
  });

  it('the loopback policy relaxes the port for its loopback address only', () => {
    expect(checkWebhookUrl('https://127.0.0.1:9443/hook', 'loopback')).toEqual({ url: 'https://127.0.0.1:9443/hook' });
    expect(checkWebhookUrl('https://127.0.0.1:9443/hook', 'public')).toEqual({ refusal: 'port' });
    expect(checkWebhookUrl('https://93.184.216.34:8443/hook', 'loopback')).toEqual({ refusal: 'non_public_address' });
  });
});
