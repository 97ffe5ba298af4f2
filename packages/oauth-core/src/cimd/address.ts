import type * as Net from 'node:net';

/**
 * Whether a metadata-document fetch must refuse to connect to `address`: loopback, private, link-local,
 * unique-local, carrier-grade NAT, IPv4-mapped, unspecified, multicast, reserved and documentation ranges.
 * Anything that is not an IP address is refused too.
 *
 * @example
 * ```ts
 * const isForbiddenAddress = createAddressCheck(await import('node:net'));
 * isForbiddenAddress('10.0.0.7'); // true
 * isForbiddenAddress('::ffff:127.0.0.1'); // true
 * isForbiddenAddress('93.184.215.14'); // false
 * ```
 */
export function createAddressCheck(net: typeof Net): (address: string) => boolean {
  // IPv4 ranges a metadata-document fetch must never reach: everything that is not globally routable
  // (RFC 6890 special-purpose registry), so an attacker-chosen client_id cannot probe the host's network.
  const forbiddenIpv4 = new net.BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8], // "this network", includes the unspecified address
    ['10.0.0.0', 8], // private
    ['100.64.0.0', 10], // carrier-grade NAT
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, includes cloud metadata endpoints
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation
    ['192.88.99.0', 24], // 6to4 relay anycast
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation
    ['203.0.113.0', 24], // documentation
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, includes broadcast
  ] as const) {
    forbiddenIpv4.addSubnet(network, prefix, 'ipv4');
  }

  // IPv6 is allowed only inside global unicast (2000::/3). That one rule refuses the unspecified and loopback
  // addresses, IPv4-mapped and IPv4-compatible forms, NAT64, unique-local (fc00::/7), link-local (fe80::/10)
  // and multicast (ff00::/8). Inside 2000::/3, the ranges that tunnel to IPv4 or are for documentation go too.
  const globalIpv6 = new net.BlockList();
  globalIpv6.addSubnet('2000::', 3, 'ipv6');
  const forbiddenGlobalIpv6 = new net.BlockList();
  for (const [network, prefix] of [
    ['2001::', 32], // Teredo
    ['2001:db8::', 32], // documentation
    ['2002::', 16], // 6to4
  ] as const) {
    forbiddenGlobalIpv6.addSubnet(network, prefix, 'ipv6');
  }

  return (address) => {
    // A zone index (fe80::1%eth0) only exists on link-local addresses.
    if (address.includes('%')) return true;
    const family = net.isIP(address);
    if (family === 4) return forbiddenIpv4.check(address, 'ipv4');
    if (family === 6) {
      return !globalIpv6.check(address, 'ipv6') || forbiddenGlobalIpv6.check(address, 'ipv6');
    }
    return true;
  };
}
