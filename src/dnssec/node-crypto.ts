/**
 * The validator's crypto on node:crypto (`DnssecCrypto`): synchronous
 * verification, public keys imported once per DNSKEY and kept.
 */
import crypto, { type KeyObject } from 'node:crypto';
import { algorithmHash, digestHash, dnskeyJwk, type DnssecCrypto } from './core/validate/crypto.ts';
import { BoundedMemo } from '../kit/core/memo.ts';

const ALGORITHMS = new Set([5, 7, 8, 10, 13, 14, 15, 16]);

/** A node:crypto public key from a DNSKEY's algorithm and public key field. */
export function nodePublicKey(alg: number, pub: Uint8Array): KeyObject | undefined {
  const jwk = dnskeyJwk(alg, pub);
  if (!jwk) return undefined;
  try {
    return crypto.createPublicKey({ format: 'jwk', key: jwk as crypto.JsonWebKey });
  } catch {
    return undefined;
  }
}

/** node:crypto for the validator; `algorithms` narrows what it claims to support (tests). */
export function nodeDnssecCrypto(algorithms: ReadonlySet<number> = ALGORITHMS): DnssecCrypto {
  const keys = new BoundedMemo<string, KeyObject | null>(1024);
  const keyOf = (alg: number, pub: Uint8Array): KeyObject | undefined => {
    const id = `${alg} ${Buffer.from(pub).toString('base64')}`;
    let k = keys.get(id);
    if (k === undefined) k = keys.set(id, nodePublicKey(alg, pub) ?? null);
    return k ?? undefined;
  };
  return {
    supportsAlgorithm: (alg) => algorithms.has(alg),
    supportsDigest: (type) => digestHash(type) !== undefined,
    verify(alg, pub, data, signature) {
      const key = keyOf(alg, pub);
      if (!key) return false;
      try {
        const hash = algorithmHash(alg);
        if (alg === 13 || alg === 14)
          return crypto.verify(hash!, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
        return crypto.verify(hash ?? null, data, key, signature);
      } catch {
        return false;
      }
    },
    digest: (type, data) =>
      crypto
        .createHash(digestHash(type) ?? 'SHA-256')
        .update(data)
        .digest(),
  };
}
