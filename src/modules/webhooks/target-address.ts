import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * IPv6 prefixes whose last 32 bits are an IPv4 address the packets go to: IPv4-mapped
 * (::ffff:0:0/96), IPv4-compatible (::/96, deprecated, but still routed to that IPv4 address by
 * some stacks) and NAT64's well-known prefix (64:ff9b::/96, translated to that IPv4 address).
 */
const CARRY_IPV4 = ['::ffff:0:0/96', '::/96', '64:ff9b::/96'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr));

/**
 * Whether a webhook may connect to `address` (an IPv4 or IPv6 literal) when only public targets
 * are allowed: the one rule for a URL's host at creation and for each DNS answer at delivery.
 * ipaddr.js names the special-purpose range an address falls in (private, loopback, link-local,
 * unique-local, multicast, unspecified, carrier-grade NAT, reserved, 6to4, Teredo, NAT64's local
 * prefixes, …); only `unicast`, its name for everything else, is public. An IPv6 address that
 * carries an IPv4 address (above) is judged as that IPv4 address, however it is written
 * (`::127.0.0.1` and `::7f00:1` alike); 6to4 and Teredo addresses tunnel to an address of their own
 * and are never public.
 */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed instanceof ipaddr.IPv6 && CARRY_IPV4.some((prefix) => parsed.match(prefix))) return embeddedIPv4(parsed).range() === 'unicast';
  return parsed.range() === 'unicast';
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = address.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}
