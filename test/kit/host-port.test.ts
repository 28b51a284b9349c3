/**
 * The one `host:port` parser (issue 19): the listen addresses of `serve` and
 * `resolver` and the client's DNS servers go through `parseHostPort`; its
 * contract, and the three edges that map its answer to their own failure.
 */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ipVersion, parseHostPort } from '../../src/kit/core/host-port.ts';
import { parseListen as parseServerListen } from '../../src/config/server.ts';
import { parseServerAddress } from '../../src/client/server-address.ts';

const ok = (host: string, port: number) => ({ ok: true, value: { host, port } });

describe('parseHostPort', () => {
  it('reads the documented forms', () => {
    expect(parseHostPort('127.0.0.1:5353')).toEqual(ok('127.0.0.1', 5353));
    expect(parseHostPort('0.0.0.0:53')).toEqual(ok('0.0.0.0', 53));
    expect(parseHostPort('[::]:53')).toEqual(ok('::', 53));
    expect(parseHostPort('[::1]:8080')).toEqual(ok('::1', 8080));
    expect(parseHostPort('[fe80::1%eth0]:53')).toEqual(ok('fe80::1%eth0', 53));
    expect(parseHostPort('localhost:0')).toEqual(ok('localhost', 0));
    expect(parseHostPort('127.0.0.1:65535')).toEqual(ok('127.0.0.1', 65535));
  });

  it('takes the default port only when the caller has one', () => {
    expect(parseHostPort('127.0.0.2', 53)).toEqual(ok('127.0.0.2', 53));
    expect(parseHostPort('[::1]', 53)).toEqual(ok('::1', 53));
    expect(parseHostPort('::1', 53)).toEqual(ok('::1', 53));
    expect(parseHostPort('2001:db8::1', 5300)).toEqual(ok('2001:db8::1', 5300));
    expect(parseHostPort('127.0.0.2').ok).toBe(false);
    expect(parseHostPort('::1').ok).toBe(false);
  });

  it('refuses names, malformed addresses and ports, with a message', () => {
    for (const bad of [
      'ns.example:53',
      'nowhere',
      '256.1.1.1:53',
      '01.2.3.4:53',
      '1.2.3:53',
      '[1.2.3.4]:53',
      '[::1:53',
      '::1:53x',
      '127.0.0.1:65536',
      '127.0.0.1:',
      '127.0.0.1:-1',
      '127.0.0.1:123456',
      ' 127.0.0.1:53',
      '[::1]:',
      '',
    ]) {
      const r = parseHostPort(bad);
      expect([bad, r.ok]).toEqual([bad, false]);
      if (!r.ok) expect(r.error.message.length).toBeGreaterThan(10);
    }
  });

  it('ipVersion agrees with node:net isIP', () => {
    for (const s of [
      '1.2.3.4',
      '::',
      '::1',
      '::ffff:1.2.3.4',
      'fe80::1%eth0',
      '1::2::3',
      '01.1.1.1',
      'x',
      '1.2.3.4.5',
      '2001:db8::',
      ':::',
    ])
      expect([s, ipVersion(s)]).toEqual([s, isIP(s)]);
  });
});

describe('the three edges use it', () => {
  it('serve and resolver: an error message; client: BAD_SERVER_ADDRESS, port 0 refused', () => {
    expect(parseServerListen('[::1]:53')).toEqual({ host: '::1', port: 53 });
    expect(typeof parseServerListen('ns.example:53')).toBe('string');
    expect(parseServerListen('localhost:0')).toEqual({ host: 'localhost', port: 0 });
    expect(parseServerAddress('localhost')).toEqual({ host: 'localhost', port: 53 });
    expect(() => parseServerAddress('127.0.0.1:0')).toThrow(/BAD_SERVER_ADDRESS|port must be/);
    expect(() => parseServerAddress('ns.example')).toThrow(/not a server address/);
  });
});
