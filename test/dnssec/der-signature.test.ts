/**
 * ECDSA signatures from node:crypto's DER to RFC 6605's r | s: every
 * converted signature verifies as IEEE P1363 (node:crypto's own decoder),
 * including the values that DER writes shorter (leading zero octets) or
 * with a sign octet.
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToRawSignature } from '../../src/dnssec/keys.ts';

describe('derToRawSignature', () => {
  it('1,000 P-256 signatures verify as r | s, 64 octets', { timeout: 60_000 }, () => {
    const { privateKey, publicKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    let short = 0;
    // At least 1,000, and on until a shorter INTEGER has been seen (about one in 128).
    for (let i = 0; i < 1000 || (short === 0 && i < 50_000); i++) {
      const data = crypto.randomBytes(64);
      const der = crypto.sign('sha256', data, privateKey);
      if (der.length < 70) short++;
      const raw = derToRawSignature(der, 32);
      const key = { key: publicKey, dsaEncoding: 'ieee-p1363' as const };
      const ok = raw.length === 64 && crypto.verify('sha256', data, key, raw);
      if (!ok) expect.fail(`DER ${der.toString('hex')} gave ${Buffer.from(raw).toString('hex')}`);
    }
    expect(short).toBeGreaterThan(0);
  });
  it('refuses what is not a DER signature', () => {
    expect(() => derToRawSignature(new Uint8Array([0x30, 3, 0x04, 1, 0]), 32)).toThrow(/not a DER/);
  });
});
