/**
 * The socket-free server-address code (`src/client/server-address.ts`, in the
 * browser build of the client) decides IP literals without `node:net`: its
 * answers must be those of `isIP` on valid, invalid and edge-case texts.
 */
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ipVersion, parseServerAddress } from '../../src/client/server-address.ts';

const SAMPLES = [
  '127.0.0.1',
  '0.0.0.0',
  '255.255.255.255',
  '256.1.1.1',
  '01.2.3.4',
  '1.2.3',
  '1.2.3.4.5',
  '1.2.3.4 ',
  '1.2.3.4%x',
  '::',
  '::1',
  ':::',
  'fe80::1%eth0',
  'fe80::1%en0.1',
  'fe80::1%',
  '::ffff:1.2.3.4',
  '::ffff:256.1.1.1',
  '::1.2.3.4',
  '1::2::3',
  '1:2:3:4:5:6:7:8',
  '1:2:3:4:5:6:7:8:9',
  '1:2:3:4:5:6:1.2.3.4',
  '2001:DB8::A',
  'g::1',
  '[::1]',
  '::1]/x[',
  'example.com',
  '',
];

describe('ipVersion: isIP without node:net', () => {
  it('agrees with node:net isIP on edge cases', () => {
    for (const s of SAMPLES) expect([s, ipVersion(s)]).toEqual([s, isIP(s)]);
  });

  it('agrees with node:net isIP on generated addresses and near misses', () => {
    const v4 = fc
      .array(fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), fc.constantFrom('01', '')), {
        minLength: 3,
        maxLength: 5,
      })
      .map((p) => p.join('.'));
    const v6 = fc
      .array(
        fc.oneof(
          fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF.g'), maxLength: 5 }),
          fc.constant(''),
        ),
        {
          minLength: 2,
          maxLength: 10,
        },
      )
      .map((p) => p.join(':'));
    fc.assert(
      fc.property(fc.oneof(v4, v6, fc.ipV4(), fc.ipV6()), (s) => ipVersion(s) === isIP(s)),
      { numRuns: 3000 },
    );
  });

  it('keeps parsing server addresses as before', () => {
    expect(parseServerAddress('[::1]:5353')).toEqual({ host: '::1', port: 5353 });
    expect(parseServerAddress('fe80::1%eth0')).toEqual({ host: 'fe80::1%eth0', port: 53 });
    expect(parseServerAddress('127.0.0.2:5300')).toEqual({ host: '127.0.0.2', port: 5300 });
    expect(() => parseServerAddress('ns.example')).toThrow(/BAD_SERVER_ADDRESS|not a server/);
  });
});
