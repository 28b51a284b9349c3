/**
 * One IP parser (issue 19): the configuration's prefix lists (`config/cidr.ts`),
 * the rate limiter and transfer ACL's client addresses, and the client IP in
 * DNS cookies (`core/wire/cookie.ts`) all read addresses with `core/kit/ip.ts`.
 * Checked against node:net's own parser, and through each user.
 */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { addressOctets } from '../../src/kit/core/ip.ts';
import { inCidr, parseCidr } from '../../src/config/cidr.ts';
import { ipBytes } from '../../src/dns/core/wire/cookie.ts';

const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString('hex') : undefined);

describe('addressOctets', () => {
  it('IPv4, IPv6, IPv4-mapped IPv6 as IPv4, a zone ignored', () => {
    expect(hex(addressOctets('192.0.2.1'))).toBe('c0000201');
    expect(hex(addressOctets('::ffff:192.0.2.1'))).toBe('c0000201');
    expect(hex(addressOctets('::ffff:c000:201'))).toBe('c0000201');
    expect(hex(addressOctets('2001:db8::1'))).toBe('20010db8000000000000000000000001');
    expect(hex(addressOctets('fe80::1%eth0'))).toBe('fe800000000000000000000000000001');
    expect(hex(addressOctets('::'))).toBe('00000000000000000000000000000000');
  });

  it('agrees with node:net on what is an address', () => {
    const texts = [
      '1.2.3.4',
      '255.255.255.255',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3',
      '1.2.3.4.5',
      '::1',
      '1::2::3',
      '1:2:3:4:5:6:7:8',
      '1:2:3:4:5:6:7:8:9',
      '::1.2.3.4',
      'g::1',
      '',
      'localhost',
      '12345::1',
    ];
    for (const t of texts) expect([t, addressOctets(t) !== undefined]).toEqual([t, isIP(t) !== 0]);
  });

  it('prefix lists and cookies read addresses through it', () => {
    const net = parseCidr('2001:db8::/32');
    if (typeof net === 'string') throw new Error(net);
    expect(inCidr(addressOctets('2001:db8:1::5')!, net)).toBe(true);
    expect(inCidr(addressOctets('2001:db9::5')!, net)).toBe(false);
    const v4 = parseCidr('192.0.2.0/24');
    if (typeof v4 === 'string') throw new Error(v4);
    expect(inCidr(addressOctets('::ffff:192.0.2.77')!, v4)).toBe(true);
    // The core's rules: no leading zeros, no octet over 255.
    expect(parseCidr('192.0.02.0/24')).toMatch(/not an IP address/);
    expect(parseCidr('192.0.2.256')).toMatch(/not an IP address/);
    expect(hex(ipBytes('::ffff:127.0.0.1'))).toBe('7f000001');
    expect(ipBytes('999.0.0.1')).toHaveLength(0);
  });
});
