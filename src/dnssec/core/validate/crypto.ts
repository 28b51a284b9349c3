/**
 * The cryptography a validator needs, passed in (WebCrypto in a browser,
 * node:crypto in Node); here, pure: which algorithms exist (RFC 8624 section
 * 3.1) and a DNSKEY's public key as a JSON Web Key (RFC 3110 section 2, RFC
 * 6605 section 4, RFC 8080 section 3).
 */
import { base64UrlEncode } from '../../../dns/core/wire/doh.ts';
import { sameBytes } from '../../../kit/core/bytes.ts';

export const ALG_RSASHA1 = 5;
export const ALG_RSASHA1_NSEC3 = 7;
export const ALG_RSASHA256 = 8;
export const ALG_RSASHA512 = 10;
export const ALG_ECDSAP256 = 13;
export const ALG_ECDSAP384 = 14;
export const ALG_ED25519 = 15;
export const ALG_ED448 = 16;

/** DS digest types (RFC 4034 section 5.1.4, RFC 4509, RFC 6605 section 2). */
export const DIGEST_SHA1 = 1;
export const DIGEST_SHA256 = 2;
export const DIGEST_SHA384 = 4;

/** A public key as JSON Web Key fields (RFC 7517/7518/8037). */
export type DnssecJwk =
  | { readonly kty: 'RSA'; readonly n: string; readonly e: string }
  | { readonly kty: 'EC'; readonly crv: 'P-256' | 'P-384'; readonly x: string; readonly y: string }
  | { readonly kty: 'OKP'; readonly crv: 'Ed25519' | 'Ed448'; readonly x: string };

type Hash = 'SHA-1' | 'SHA-256' | 'SHA-384' | 'SHA-512';

const ALGORITHM_HASH: Readonly<Record<number, Hash>> = {
  [ALG_RSASHA1]: 'SHA-1',
  [ALG_RSASHA1_NSEC3]: 'SHA-1',
  [ALG_RSASHA256]: 'SHA-256',
  [ALG_ECDSAP256]: 'SHA-256',
  [ALG_ECDSAP384]: 'SHA-384',
  [ALG_RSASHA512]: 'SHA-512',
};

const DIGEST_HASH: Readonly<Record<number, Hash>> = {
  [DIGEST_SHA1]: 'SHA-1',
  [DIGEST_SHA256]: 'SHA-256',
  [DIGEST_SHA384]: 'SHA-384',
};

/** The hash an algorithm signs with (the RSA and ECDSA ones), or undefined for EdDSA. */
export const algorithmHash = (alg: number): Hash | undefined => ALGORITHM_HASH[alg];

/** The digest of a DS digest type, or undefined for an unknown one. */
export const digestHash = (type: number): Hash | undefined => DIGEST_HASH[type];

/** The JWK of a DNSKEY public key field for `alg`, or undefined when it does not read as one. */
export function dnskeyJwk(alg: number, pub: Uint8Array): DnssecJwk | undefined {
  const b64 = (b: Uint8Array) => base64UrlEncode(b);
  switch (alg) {
    case ALG_ECDSAP256:
    case ALG_ECDSAP384: {
      const n = alg === ALG_ECDSAP256 ? 32 : 48;
      if (pub.length !== 2 * n) return undefined;
      const crv = alg === ALG_ECDSAP256 ? 'P-256' : 'P-384';
      return { kty: 'EC', crv, x: b64(pub.subarray(0, n)), y: b64(pub.subarray(n)) };
    }
    case ALG_ED25519:
    case ALG_ED448: {
      if (pub.length !== (alg === ALG_ED25519 ? 32 : 57)) return undefined;
      return { kty: 'OKP', crv: alg === ALG_ED25519 ? 'Ed25519' : 'Ed448', x: b64(pub) };
    }
    case ALG_RSASHA1:
    case ALG_RSASHA1_NSEC3:
    case ALG_RSASHA256:
    case ALG_RSASHA512: {
      if (pub.length < 3) return undefined;
      const long = pub[0] === 0;
      const elen = long ? (pub[1]! << 8) | pub[2]! : pub[0]!;
      const start = long ? 3 : 1;
      if (elen === 0 || start + elen >= pub.length) return undefined;
      return {
        kty: 'RSA',
        e: b64(pub.subarray(start, start + elen)),
        n: b64(pub.subarray(start + elen)),
      };
    }
    default:
      return undefined;
  }
}

/** What the validator asks of the platform (answers may be promises: WebCrypto is asynchronous). */
export interface DnssecCrypto {
  /** Whether signatures of this algorithm can be checked here. */
  supportsAlgorithm(alg: number): boolean;
  /** Whether DS records of this digest type can be checked here. */
  supportsDigest(type: number): boolean;
  /** Whether `signature` over `data` verifies with the DNSKEY public key field `publicKey`. */
  verify(
    alg: number,
    publicKey: Uint8Array,
    data: Uint8Array,
    signature: Uint8Array,
  ): boolean | Promise<boolean>;
  /** The DS digest of `data`. */
  digest(type: number, data: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

/** Signatures whose verification a validator remembers (most; the oldest go first). */
export const VERIFIED_MEMO = 4096;

/** `crypto` remembering valid signatures with their exact key and data (a replay elsewhere is checked). */
export function rememberingVerifier(crypto: DnssecCrypto, most = VERIFIED_MEMO): DnssecCrypto {
  const seen = new Map<string, { alg: number; publicKey: Uint8Array; data: Uint8Array }>();
  const keep = (k: string, alg: number, publicKey: Uint8Array, data: Uint8Array) => {
    if (seen.size >= most) seen.delete(seen.keys().next().value!);
    seen.set(k, { alg, publicKey: publicKey.slice(), data: data.slice() });
  };
  return {
    supportsAlgorithm: (alg) => crypto.supportsAlgorithm(alg),
    supportsDigest: (type) => crypto.supportsDigest(type),
    digest: (type, data) => crypto.digest(type, data),
    verify(alg, publicKey, data, signature) {
      const k = String.fromCharCode(...signature);
      const hit = seen.get(k);
      if (
        hit &&
        hit.alg === alg &&
        sameBytes(hit.publicKey, publicKey) &&
        sameBytes(hit.data, data)
      )
        return true;
      const r = crypto.verify(alg, publicKey, data, signature);
      if (typeof r === 'boolean') {
        if (r) keep(k, alg, publicKey, data);
        return r;
      }
      return r.then((ok) => {
        if (ok) keep(k, alg, publicKey, data);
        return ok;
      });
    },
  };
}
