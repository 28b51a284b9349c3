/**
 * The validator's memory of verified signatures (`rememberingVerifier`,
 * issue 32's cold bench): the same signature over the same data and key is
 * not verified again; over other data, with another key or algorithm, or
 * after a failure, it is verified in full.
 */
import { describe, expect, it } from 'vitest';
import { rememberingVerifier, type DnssecCrypto } from '../../src/dnssec/core/validate/crypto.ts';

function counting(valid: (data: Uint8Array) => boolean) {
  const calls: number[] = [];
  const crypto: DnssecCrypto = {
    supportsAlgorithm: () => true,
    supportsDigest: () => true,
    digest: (_t, d) => d,
    verify: (_alg, _key, data) => {
      calls.push(data[0]!);
      return valid(data);
    },
  };
  return { crypto, calls };
}

const key = Uint8Array.of(1, 2, 3);
const sig = Uint8Array.of(9, 9, 9, 9);

describe('rememberingVerifier', () => {
  it('verifies a signature once for the same data and key, then remembers it', () => {
    const { crypto, calls } = counting(() => true);
    const v = rememberingVerifier(crypto);
    expect(v.verify(13, key, Uint8Array.of(1), sig)).toBe(true);
    expect(v.verify(13, key, Uint8Array.of(1), sig)).toBe(true);
    expect(calls).toEqual([1]);
  });

  it('verifies again for other data, another key or algorithm (a replayed signature)', () => {
    const { crypto, calls } = counting((d) => d[0] === 1);
    const v = rememberingVerifier(crypto);
    expect(v.verify(13, key, Uint8Array.of(1), sig)).toBe(true);
    expect(v.verify(13, key, Uint8Array.of(2), sig)).toBe(false);
    expect(v.verify(13, Uint8Array.of(7), Uint8Array.of(1), sig)).toBe(true);
    expect(v.verify(8, key, Uint8Array.of(1), sig)).toBe(true);
    expect(calls).toEqual([1, 2, 1, 1]);
  });

  it('does not remember failures, and keeps at most `most` signatures', async () => {
    const { crypto, calls } = counting((d) => d[0] !== 0);
    const v = rememberingVerifier(crypto, 2);
    expect(v.verify(13, key, Uint8Array.of(0), sig)).toBe(false);
    expect(v.verify(13, key, Uint8Array.of(0), sig)).toBe(false);
    for (const s of [1, 2, 3]) v.verify(13, key, Uint8Array.of(s), Uint8Array.of(s));
    v.verify(13, key, Uint8Array.of(1), Uint8Array.of(1)); // evicted: verified again
    v.verify(13, key, Uint8Array.of(3), Uint8Array.of(3)); // kept
    expect(calls).toEqual([0, 0, 1, 2, 3, 1]);
    // A promise-answering platform (WebCrypto) is remembered too.
    const asyncCalls: number[] = [];
    const w = rememberingVerifier({
      ...crypto,
      verify: (_a, _k, d) => {
        asyncCalls.push(d[0]!);
        return Promise.resolve(true);
      },
    });
    expect(await w.verify(13, key, Uint8Array.of(5), sig)).toBe(true);
    expect(await w.verify(13, key, Uint8Array.of(5), sig)).toBe(true);
    expect(asyncCalls).toEqual([5]);
  });
});
