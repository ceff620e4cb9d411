/**
 * Names reserved for documentation and examples (RFC 2606, RFC 6761): `example.com`, `example.net`,
 * `example.org` with their subdomains, and anything under `.example` or `.invalid`. No receiver
 * answers there, so a delivery to one is never sent: it fails at once, with no retry. `.test` is
 * not among them: it is meant for local testing, where such a name may well resolve to a receiver.
 */
export function isExampleHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return /(^|\.)example\.(com|net|org)$/.test(name) || /(^|\.)(example|invalid)$/.test(name);
}

/** The delivery's last_error for such a host. */
export function exampleHostError(hostname: string): string {
  return `not sent: ${hostname} is a name reserved for examples (RFC 2606) that no receiver answers; not retried (use your receiver's address)`;
}
