import ipaddr from 'ipaddr.js';

/**
 * Whether a webhook may connect to `address` (an IPv4 or IPv6 literal) when only public targets
 * are allowed. ipaddr.js names the special-purpose range an address falls in (private, loopback,
 * link-local, unique-local, multicast, unspecified, carrier-grade NAT, reserved, 6to4, Teredo, …);
 * only `unicast`, its name for everything else, is public. An IPv4-mapped IPv6 address is judged
 * as the IPv4 address it carries.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}
