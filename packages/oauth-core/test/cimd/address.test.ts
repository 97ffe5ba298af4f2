import * as net from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAddressCheck } from '../../src/cimd/address.js';

const isForbiddenAddress = createAddressCheck(net);

describe('isForbiddenAddress: only globally routable addresses may be fetched', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback range'],
    ['10.1.2.3', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12 upper end'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'IPv6 unspecified'],
    ['::1', 'IPv6 loopback'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public (mapped forms are refused whole)'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with zone'],
    ['ff02::1', 'multicast'],
    ['2002:a00:1::1', '6to4 (may embed a private IPv4)'],
    ['2001:db8::1', 'documentation'],
    ['not-an-ip', 'not an address'],
  ])('refuses %s (%s)', (address) => {
    expect(isForbiddenAddress(address)).toBe(true);
  });

  it.each([
    ['93.184.215.14'],
    ['8.8.8.8'],
    ['172.32.0.1'],
    ['2606:4700:4700::1111'],
    ['2a00:1450:4001:80b::200e'],
  ])('allows the public address %s', (address) => {
    expect(isForbiddenAddress(address)).toBe(false);
  });
});
