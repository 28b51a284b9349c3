/**
 * The validator's crypto on WebCrypto (`crypto.subtle`), for the browser
 * build. Each DNSKEY is imported once; a failed import (Ed25519 where the
 * platform lacks it) verifies nothing, so the RRset is bogus, not secure.
 *
 * @see RFC 5702, RFC 6605 section 4 (r | s, WebCrypto's own form), RFC 8080
 */
import {
  algorithmHash,
  digestHash,
  dnskeyJwk,
  ALG_ECDSAP256,
  ALG_ECDSAP384,
  ALG_ED25519,
  type DnssecCrypto,
  type DnssecJwk,
} from './core/validate/crypto.ts';
import { BoundedMemo } from '../kit/core/memo.ts';

/** The part of SubtleCrypto used here (typed here: the Node and DOM typings differ). */
interface Subtle {
  importKey(
    format: 'jwk',
    key: DnssecJwk,
    algorithm: object,
    extractable: boolean,
    usages: string[],
  ): Promise<unknown>;
  verify(
    algorithm: object,
    key: unknown,
    signature: Uint8Array,
    data: Uint8Array,
  ): Promise<boolean>;
  digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer>;
}

const ALGORITHMS = new Set([5, 7, 8, 10, 13, 14, 15]);

function importParams(alg: number): object {
  if (alg === ALG_ECDSAP256 || alg === ALG_ECDSAP384)
    return { name: 'ECDSA', namedCurve: alg === ALG_ECDSAP256 ? 'P-256' : 'P-384' };
  if (alg === ALG_ED25519) return { name: 'Ed25519' };
  return { name: 'RSASSA-PKCS1-v1_5', hash: algorithmHash(alg) };
}

function verifyParams(alg: number): object {
  if (alg === ALG_ECDSAP256 || alg === ALG_ECDSAP384)
    return { name: 'ECDSA', hash: algorithmHash(alg) };
  if (alg === ALG_ED25519) return { name: 'Ed25519' };
  return { name: 'RSASSA-PKCS1-v1_5' };
}

/** WebCrypto for the validator (`subtle` defaults to the global one). */
export function webDnssecCrypto(
  subtle: Subtle = (globalThis as unknown as { crypto: { subtle: Subtle } }).crypto.subtle,
): DnssecCrypto {
  const keys = new BoundedMemo<string, Promise<unknown>>(1024);
  const keyOf = (alg: number, pub: Uint8Array): Promise<unknown> => {
    let id = `${alg} `;
    for (const b of pub) id += String.fromCharCode(b);
    const hit = keys.get(id);
    if (hit !== undefined) return hit;
    const jwk = dnskeyJwk(alg, pub);
    const made = jwk
      ? subtle.importKey('jwk', jwk, importParams(alg), false, ['verify']).catch(() => undefined)
      : Promise.resolve(undefined);
    return keys.set(id, made);
  };
  return {
    supportsAlgorithm: (alg) => ALGORITHMS.has(alg),
    supportsDigest: (type) => digestHash(type) !== undefined,
    async verify(alg, pub, data, signature) {
      const key = await keyOf(alg, pub);
      if (key === undefined) return false;
      try {
        return await subtle.verify(verifyParams(alg), key, signature, data);
      } catch {
        return false;
      }
    },
    async digest(type, data) {
      return new Uint8Array(await subtle.digest(digestHash(type) ?? 'SHA-256', data));
    },
  };
}
