import { isIP } from 'node:net';
import { ValidateBy } from 'class-validator';
import { compile } from 'proxy-addr';

/** The entries of a TRUST_PROXY value: comma-separated, surrounding white space ignored. */
export function trustedProxyList(value: string): string[] {
  return value.split(',').map((entry) => entry.trim());
}

/**
 * A list Express's `trust proxy` takes: IP addresses, CIDR ranges and the names loopback,
 * linklocal, uniquelocal. Checked with proxy-addr, the parser Express itself applies the list
 * with, so that what passes here is what Express trusts. Booleans and hop counts are refused:
 * trusting whoever connects is what this setting is there to prevent. Addresses must be written
 * the usual way: proxy-addr would also read `1` as the address 0.0.0.1, not as one hop.
 */
export function IsTrustedProxyList() {
  return ValidateBy({
    name: 'isTrustedProxyList',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && isTrustedProxyList(trustedProxyList(value)),
      defaultMessage: () => 'must be comma-separated IP addresses, CIDR ranges or the names loopback, linklocal, uniquelocal',
    },
  });
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isTrustedProxyList(entries: string[]): boolean {
  if (!entries.every((entry) => PROXY_NAMES.has(entry) || isIP(entry.split('/')[0]) !== 0)) return false;
  try {
    compile(entries);
    return true;
  } catch {
    return false;
  }
}
