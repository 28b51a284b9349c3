/**
 * DNSSEC keys in BIND's files (`K<zone>+<alg>+<tag>.key`/`.private`, v1.3)
 * and signing through node:crypto: algorithms 8, 13 and 15 (RFC 5702, RFC
 * 6605, RFC 8080).
 */
import crypto, { type KeyObject } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  ALG_ECDSAP256SHA256,
  ALG_ED25519,
  ALG_RSASHA256,
  dnskeyRdata,
  FLAGS_KSK,
  keyTag,
} from './core/records.ts';
import type { ZoneSigningKey } from './core/sign-zone.ts';
import type { DnssecKeyCode } from './core/codes.ts';
import type { ZoneCode } from '../dns/core/zone/codes.ts';

export class KeyError extends Error {
  /** A key or signing code; ZONE_INVALID when the zone to sign has errors. */
  readonly code: DnssecKeyCode | ZoneCode;
  constructor(code: DnssecKeyCode | ZoneCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const ALGORITHM_NAMES: ReadonlyMap<number, string> = new Map([
  [ALG_RSASHA256, 'RSASHA256'],
  [ALG_ECDSAP256SHA256, 'ECDSAP256SHA256'],
  [ALG_ED25519, 'ED25519'],
]);

/** An algorithm by number or BIND mnemonic, or undefined. */
export function algorithmOf(text: string): number | undefined {
  const n = Number(text);
  if (ALGORITHM_NAMES.has(n)) return n;
  for (const [code, name] of ALGORITHM_NAMES) if (name === text.toUpperCase()) return code;
  return undefined;
}

export interface LoadedKey extends ZoneSigningKey {
  readonly tag: number;
  /** For signing threads (`parallel-sign.ts`). */
  readonly privateKey: KeyObject;
  /** `K<zone>+<alg>+<tag>` */
  readonly basename: string;
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** An ECDSA signature from DER to the r | s of RFC 6605 section 4 (`size` octets each). */
export function derToRawSignature(der: Uint8Array, size: number): Uint8Array {
  const out = new Uint8Array(2 * size);
  // SEQUENCE header: 0x30, then a short or long (0x81 n) length.
  let p = der[1]! & 0x80 ? 2 + (der[1]! & 0x7f) : 2;
  for (let part = 0; part < 2; part++) {
    if (der[p] !== 0x02) throw new Error('not a DER ECDSA signature');
    let len = der[p + 1]!;
    p += 2;
    // An INTEGER with its sign octet (0x00) is one longer than the value.
    while (len > size && der[p] === 0) {
      p++;
      len--;
    }
    if (len > size) throw new Error('DER ECDSA signature value too long');
    out.set(der.subarray(p, p + len), part * size + size - len);
    p += len;
  }
  return out;
}

/** The signing function of a private key for an algorithm. */
export function signer(alg: number, key: KeyObject): (data: Uint8Array) => Uint8Array {
  if (alg === ALG_ECDSAP256SHA256)
    // RFC 6605 section 4: r | s. DER with the key object, converted, is faster than 'ieee-p1363'.
    return (d) => derToRawSignature(crypto.sign('sha256', d, key), 32);
  if (alg === ALG_ED25519) return (d) => new Uint8Array(crypto.sign(null, d, key));
  return (d) => new Uint8Array(crypto.sign('sha256', d, key));
}

/** The DNSKEY public key field of a private key (RFC 3110 section 2 for RSA). */
function publicField(alg: number, key: KeyObject): Uint8Array {
  const jwk = crypto.createPublicKey(key).export({ format: 'jwk' });
  const raw = (s: string | undefined) => Buffer.from(s!, 'base64url');
  if (alg === ALG_ECDSAP256SHA256) return new Uint8Array([...raw(jwk.x), ...raw(jwk.y)]);
  if (alg === ALG_ED25519) return new Uint8Array(raw(jwk.x));
  const e = raw(jwk.e);
  const n = raw(jwk.n);
  const len = e.length < 256 ? [e.length] : [0, e.length >>> 8, e.length & 0xff];
  return new Uint8Array([...len, ...e, ...n]);
}

function makeKey(origin: string, flags: number, alg: number, key: KeyObject): LoadedKey {
  const publicKey = publicField(alg, key);
  const tag = keyTag(dnskeyRdata(flags, alg, publicKey));
  const basename = `K${origin}+${String(alg).padStart(3, '0')}+${String(tag).padStart(5, '0')}`;
  return {
    flags,
    algorithm: alg,
    publicKey,
    sign: signer(alg, key),
    privateKey: key,
    tag,
    basename,
  };
}

/** The private key in a `.private` file's fields. */
function privateFromFields(alg: number, f: ReadonlyMap<string, string>): KeyObject {
  const need = (k: string) => {
    const v = f.get(k);
    if (v === undefined) throw new KeyError('KEY_FIELD_MISSING', `the private key has no ${k}`);
    return Buffer.from(v, 'base64');
  };
  if (alg === ALG_ECDSAP256SHA256) {
    const ecdh = crypto.createECDH('prime256v1');
    const d = need('PrivateKey');
    ecdh.setPrivateKey(d);
    const pub = ecdh.getPublicKey();
    return crypto.createPrivateKey({
      format: 'jwk',
      key: {
        kty: 'EC',
        crv: 'P-256',
        d: b64u(d),
        x: b64u(pub.subarray(1, 33)),
        y: b64u(pub.subarray(33)),
      },
    });
  }
  if (alg === ALG_ED25519) {
    // PKCS #8 wrapping of a 32-octet Ed25519 seed (RFC 8410 section 7).
    const der = Buffer.concat([
      Buffer.from('302e020100300506032b657004220420', 'hex'),
      need('PrivateKey'),
    ]);
    return crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  }
  const names =
    'Modulus PublicExponent PrivateExponent Prime1 Prime2 Exponent1 Exponent2 Coefficient';
  const [n, e, d, p, q, dp, dq, qi] = names.split(' ').map((k) => need(k).toString('base64url'));
  return crypto.createPrivateKey({ format: 'jwk', key: { kty: 'RSA', n, e, d, p, q, dp, dq, qi } });
}

function fieldsOf(text: string): Map<string, string> {
  const f = new Map<string, string>();
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) f.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return f;
}

/** Read a key pair: `<base>.private` and the flags from `<base>.key`. */
export async function readKey(base: string, origin: string): Promise<LoadedKey> {
  const priv = fieldsOf(await readFile(`${base}.private`, 'utf8'));
  const alg = Number((priv.get('Algorithm') ?? '').split(/\s/)[0]);
  if (!ALGORITHM_NAMES.has(alg))
    throw new KeyError(
      'KEY_ALGORITHM',
      `${base}.private: algorithm ${priv.get('Algorithm')} is not 8, 13 or 15`,
    );
  const pub = (await readFile(`${base}.key`, 'utf8'))
    .split('\n')
    .find((l) => l.trim() && !l.startsWith(';'));
  const m = pub && /\sDNSKEY\s+(\d+)\s+3\s+(\d+)\s/i.exec(pub);
  if (!m) throw new KeyError('KEY_FILE', `${base}.key has no DNSKEY record`);
  const key = makeKey(origin, Number(m[1]), alg, privateFromFields(alg, priv));
  if (key.basename !== path.basename(base))
    throw new KeyError(
      'KEY_MISMATCH',
      `${base}: the private key does not give key tag ${path.basename(base)}`,
    );
  return key;
}

/** Every `K<origin>+*.private` key in `dir` for the zone, KSKs first. */
export async function readZoneKeys(dir: string, origin: string): Promise<LoadedKey[]> {
  const prefix = `K${origin}+`;
  const names = (await readdir(dir)).filter(
    (f) => f.toLowerCase().startsWith(prefix.toLowerCase()) && f.endsWith('.private'),
  );
  const keys: LoadedKey[] = [];
  for (const f of names.sort()) keys.push(await readKey(path.join(dir, f.slice(0, -8)), origin));
  keys.sort((a, b) => b.flags - a.flags);
  return keys;
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Make a key for `origin` and write its `.key` and `.private` files into `dir`. */
export async function generateKey(
  dir: string,
  origin: string,
  alg: number,
  ksk: boolean,
  now = new Date(),
): Promise<LoadedKey> {
  let pair: crypto.KeyPairKeyObjectResult;
  if (alg === ALG_ECDSAP256SHA256) pair = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  else if (alg === ALG_ED25519) pair = crypto.generateKeyPairSync('ed25519');
  else pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 65537 });
  const flags = ksk ? FLAGS_KSK : 256;
  const key = makeKey(origin, flags, alg, pair.privateKey);
  const jwk = pair.privateKey.export({ format: 'jwk' });
  const t = stamp(now);
  const algName = `${alg} (${ALGORITHM_NAMES.get(alg)})`;
  let body: string;
  if (alg === ALG_RSASHA256) {
    const b = (s: string | undefined) => Buffer.from(s!, 'base64url').toString('base64');
    body = `Modulus: ${b(jwk.n)}\nPublicExponent: ${b(jwk.e)}\nPrivateExponent: ${b(jwk.d)}\nPrime1: ${b(jwk.p)}\nPrime2: ${b(jwk.q)}\nExponent1: ${b(jwk.dp)}\nExponent2: ${b(jwk.dq)}\nCoefficient: ${b(jwk.qi)}\n`;
  } else body = `PrivateKey: ${Buffer.from(jwk.d!, 'base64url').toString('base64')}\n`;
  const priv = `Private-key-format: v1.3\nAlgorithm: ${algName}\n${body}Created: ${t}\nPublish: ${t}\nActivate: ${t}\n`;
  const kind = ksk ? 'key-signing' : 'zone-signing';
  const pubText = `; This is a ${kind} key, keyid ${key.tag}, for ${origin}\n; Created: ${t}\n; Publish: ${t}\n; Activate: ${t}\n${origin} IN DNSKEY ${flags} 3 ${alg} ${Buffer.from(key.publicKey).toString('base64')}\n`;
  try {
    // The folder is made when missing (`--dir keys` on a fresh checkout), private like the keys.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(path.join(dir, `${key.basename}.private`), priv, { mode: 0o600 });
    await writeFile(path.join(dir, `${key.basename}.key`), pubText);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new KeyError(
      'KEY_DIR_UNWRITABLE',
      `cannot write the key files of ${origin} into ${dir} (${why}): it must be a folder this user can write, or a path where one can be made`,
    );
  }
  return key;
}
