/**
 * RDATA of less common types, with the choices where BIND and Knot differ:
 * - NID, L32, L64, LP (RFC 6742): 16-bit hex groups read with 1-4 digits and
 *   printed without leading zeros, as BIND.
 * - CERT (RFC 4398): type and algorithm as numbers or mnemonics, base64.
 * - IPSECKEY (RFC 4025): algorithm 0 with a key refused and the key optional (as Knot).
 * - APL (RFC 3123): `[!]afi:address/prefix`, no trailing zero octets.
 * - KEY (RFC 2535): the "no key" flags with a key refused (as BIND).
 * - DSYNC (RFC 9859).
 */
import type { Lexer } from '../../zone/lexer.ts';
import { TOKEN_ESCAPED, TOKEN_QUOTED } from '../../zone/lexer.ts';
import { nameToText, wireNameLength } from '../../zone/names.ts';
import {
  algorithmNumber,
  algorithmText,
  base64Tokens,
  extra,
  fail,
  mnemonicToken,
  isError,
  numberToken,
  ipv4Text,
  ipv6Text,
  quoteString,
  readU16,
  readU32,
  toBase64,
  toHex,
  typeNumber,
  writeAddress,
  writeBase64,
  writeHexToken,
  writeNameToken,
  writeStringBytes,
  type ByteWriter,
  type RdataCodec,
  type RdataError,
} from './layout.ts';
import { typeName } from '../types.ts';

/** Four colon-separated groups of 1-4 hex digits (a 64-bit NodeID or Locator64). */
function writeLocator64(lex: Lexer, t: number, w: ByteWriter): RdataError | undefined {
  if (t >= lex.count) return fail('ZONE_MISSING_RDATA', 'RDATA is missing its 64-bit value', -1);
  const token = lex.token(t);
  if (!/^[0-9a-f]{1,4}(:[0-9a-f]{1,4}){3}$/i.test(token))
    return fail(
      'ZONE_BAD_RDATA',
      'expected four colon-separated groups of hexadecimal digits, like 0014:4fff:ff20:ee64 (RFC 6742 section 2.1.2)',
      t,
    );
  for (const group of token.split(':')) w.u16(parseInt(group, 16));
  return undefined;
}

function locator64Text(b: Uint8Array, p: number): string {
  const group = (i: number) => readU16(b, p + 2 * i).toString(16);
  return [0, 1, 2, 3].map((i) => group(i).padStart(4, '0')).join(':');
}

function prefAnd(
  second: (
    lex: Lexer,
    t: number,
    w: ByteWriter,
    origin: Uint8Array | undefined,
  ) => RdataError | undefined,
  check: (b: Uint8Array, type: number) => string | undefined,
  print: (b: Uint8Array) => string,
): RdataCodec {
  return {
    parse(lex, first, origin, w, type) {
      const pref = numberToken(lex, first, 65535, 'preference');
      if (isError(pref)) return pref;
      w.u16(pref);
      return second(lex, first + 1, w, origin) ?? extra(lex, first + 2, `${typeName(type)} RDATA`);
    },
    check,
    print: (b) => `${readU16(b, 0)} ${print(b)}`,
  };
}

/** NID and L64: a preference and a 64-bit value. */
export const LOCATOR64_CODEC: RdataCodec = prefAnd(
  writeLocator64,
  (b, type) => (b.length === 10 ? undefined : `${typeName(type)} RDATA is 10 octets`),
  (b) => locator64Text(b, 2),
);
export const L32_CODEC: RdataCodec = prefAnd(
  (lex, t, w) => {
    if (t >= lex.count) return fail('ZONE_MISSING_RDATA', 'L32 RDATA is missing its locator', -1);
    if (!writeAddress(lex.text, lex.starts[t]!, lex.ends[t]!, 4, w))
      return fail(
        'ZONE_BAD_IPV4',
        'expected an IPv4 address as Locator32 (RFC 6742 section 2.2)',
        t,
      );
    return undefined;
  },
  (b) => (b.length === 6 ? undefined : 'L32 RDATA is 6 octets'),
  (b) => ipv4Text(b, 2),
);
export const LP_CODEC: RdataCodec = prefAnd(
  (lex, t, w, origin) =>
    t >= lex.count
      ? fail('ZONE_MISSING_RDATA', 'LP RDATA is missing its FQDN', -1)
      : writeNameToken(lex, t, origin, w),
  (b) =>
    b.length > 2 && wireNameLength(b, 2, b.length) === b.length - 2
      ? undefined
      : 'malformed LP RDATA',
  (b) => nameToText(b, 2, false),
);

const CERT_TYPES: ReadonlyMap<string, number> = new Map([
  ['PKIX', 1],
  ['SPKI', 2],
  ['PGP', 3],
  ['IPKIX', 4],
  ['ISPKI', 5],
  ['IPGP', 6],
  ['ACPKIX', 7],
  ['IACPKIX', 8],
  ['URI', 253],
  ['OID', 254],
]);

const CERT_NAMES: ReadonlyMap<number, string> = new Map([...CERT_TYPES].map(([k, v]) => [v, k]));

export const CERT_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const type = mnemonicToken(lex, first, 65535, CERT_TYPES, 'certificate type');
    if (isError(type)) return type;
    const tag = numberToken(lex, first + 1, 65535, 'key tag');
    if (isError(tag)) return tag;
    const alg = mnemonicToken(lex, first + 2, 255, algorithmNumber, 'algorithm');
    if (isError(alg)) return alg;
    w.u16(type);
    w.u16(tag);
    w.u8(alg);
    if (first + 3 >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'CERT RDATA is missing its certificate', -1);
    return base64Tokens(lex, first + 3, w);
  },
  check: (b) => (b.length < 6 ? 'CERT RDATA is 5 octets and a certificate' : undefined),
  print(b) {
    const type = CERT_NAMES.get(readU16(b, 0)) ?? String(readU16(b, 0));
    return `${type} ${readU16(b, 2)} ${algorithmText(b[4]!)} ${toBase64(b.subarray(5))}`;
  },
};

export const KEY_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const flags = numberToken(lex, first, 65535, 'flags');
    if (isError(flags)) return flags;
    const proto = numberToken(lex, first + 1, 255, 'protocol');
    if (isError(proto)) return proto;
    const alg = mnemonicToken(lex, first + 2, 255, algorithmNumber, 'algorithm');
    if (isError(alg)) return alg;
    w.u16(flags);
    w.u8(proto);
    w.u8(alg);
    const noKey = (flags & 0xc000) === 0xc000;
    if (noKey)
      return first + 3 < lex.count
        ? fail(
            'ZONE_EXTRA_RDATA',
            'flags with both no-key bits (0xC000) take no key (RFC 2535 section 3.1.2)',
            first + 3,
          )
        : undefined;
    if (first + 3 >= lex.count)
      return fail(
        'ZONE_MISSING_RDATA',
        'KEY RDATA is missing its key (only flags with the no-key bits 0xC000 leave it out, RFC 2535 section 3.1.2)',
        -1,
      );
    return base64Tokens(lex, first + 3, w);
  },
  check(b) {
    if (b.length < 4) return 'truncated';
    const noKey = (readU16(b, 0) & 0xc000) === 0xc000;
    if (noKey !== (b.length === 4))
      return noKey ? 'a KEY with the no-key flags has a key' : 'KEY RDATA without a key';
    return undefined;
  },
  print: (b) =>
    `${readU16(b, 0)} ${b[2]} ${b[3]}${b.length > 4 ? ` ${toBase64(b.subarray(4))}` : ''}`,
};

/** The gateway of IPSECKEY or relay of AMTRELAY by type: 0 `.`, 1 IPv4, 2 IPv6, 3 a name. */
function writeGateway(
  lex: Lexer,
  t: number,
  type: number,
  what: 'gateway' | 'relay',
  ref: string,
  origin: Uint8Array | undefined,
  w: ByteWriter,
): RdataError | undefined {
  const s = lex.starts[t]!;
  const e = lex.ends[t]!;
  if (type === 0) {
    if (e - s !== 1 || lex.text.charCodeAt(s) !== 0x2e)
      return fail('ZONE_BAD_RDATA', `${what} type 0 takes "." as ${what} (${ref})`, t);
    return undefined;
  }
  if (type === 3) return writeNameToken(lex, t, origin, w);
  if (writeAddress(lex.text, s, e, type === 1 ? 4 : 16, w)) return undefined;
  return fail(
    type === 1 ? 'ZONE_BAD_IPV4' : 'ZONE_BAD_IPV6',
    `${what} type ${type} takes an IPv${type === 1 ? 4 : 6} address`,
    t,
  );
}

/** Octets of the gateway or relay of `type` at `p`: -1 a malformed name, -2 an unknown type. */
function gatewayLength(b: Uint8Array, p: number, type: number): number {
  if (type === 3) return wireNameLength(b, p, b.length);
  return type === 0 ? 0 : type === 1 ? 4 : type === 2 ? 16 : -2;
}

function gatewayText(b: Uint8Array, p: number, type: number): string {
  if (type === 3) return nameToText(b, p, false);
  return type === 0 ? '.' : type === 1 ? ipv4Text(b, p) : ipv6Text(b, p);
}

export const IPSECKEY_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const prec = numberToken(lex, first, 255, 'precedence');
    if (isError(prec)) return prec;
    const gwType = numberToken(lex, first + 1, 255, 'gateway type');
    if (isError(gwType)) return gwType;
    if (gwType > 3)
      return fail(
        'ZONE_BAD_RDATA',
        'gateway type is 0 (none), 1 (IPv4), 2 (IPv6) or 3 (name)',
        first + 1,
      );
    const alg = numberToken(lex, first + 2, 255, 'algorithm');
    if (isError(alg)) return alg;
    w.u8(prec);
    w.u8(gwType);
    w.u8(alg);
    const t = first + 3;
    if (t >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'IPSECKEY RDATA is missing its gateway', -1);
    const problem = writeGateway(lex, t, gwType, 'gateway', 'RFC 4025 section 3.1', origin, w);
    if (problem) return problem;
    if (t + 1 >= lex.count) return undefined;
    if (alg === 0)
      return fail(
        'ZONE_EXTRA_RDATA',
        'algorithm 0 means no key is present (RFC 4025 section 2.4)',
        t + 1,
      );
    return base64Tokens(lex, t + 1, w);
  },
  check(b) {
    if (b.length < 3) return 'truncated';
    const n = gatewayLength(b, 3, b[1]!);
    if (n < 0) return n === -2 ? 'unknown gateway type' : 'malformed gateway name';
    if (3 + n > b.length) return 'truncated gateway';
    if (b[2] === 0 && 3 + n < b.length) return 'algorithm 0 with a key';
    return undefined;
  },
  print(b) {
    const p = 3 + gatewayLength(b, 3, b[1]!);
    const key = p < b.length ? ` ${toBase64(b.subarray(p))}` : '';
    return `${b[0]} ${b[1]} ${b[2]} ${gatewayText(b, 3, b[1]!)}${key}`;
  },
};

export const APL_CODEC: RdataCodec = {
  emptyOk: true,
  parse(lex, first, _origin, w) {
    for (let t = first; t < lex.count; t++) {
      const item = lex.token(t);
      const m = /^(!?)([0-9]{1,5}):([^/]+)\/([0-9]{1,3})$/.exec(item);
      const family = m ? Number(m[2]) : 0;
      if (!m || (family !== 1 && family !== 2))
        return fail(
          'ZONE_BAD_RDATA',
          'an APL item is [!]1:IPv4/prefix or [!]2:IPv6/prefix (RFC 3123 section 5)',
          t,
        );
      const size = family === 1 ? 4 : 16;
      const prefix = Number(m[4]);
      if (prefix > size * 8)
        return fail(
          'ZONE_BAD_RDATA',
          `an APL prefix of family ${family} is at most ${size * 8}`,
          t,
        );
      w.u16(family);
      w.u8(prefix);
      const at = w.len;
      w.u8(0);
      if (!writeAddress(m[3]!, 0, m[3]!.length, size, w))
        return fail(
          family === 1 ? 'ZONE_BAD_IPV4' : 'ZONE_BAD_IPV6',
          `the address of family ${family} is not an IPv${family === 1 ? 4 : 6} address`,
          t,
        );
      // RFC 3123 section 4: the address without its trailing zero octets.
      while (w.len > at + 1 && w.buf[w.len - 1] === 0) w.len--;
      w.buf[at] = (m[1] ? 0x80 : 0) | (w.len - at - 1);
    }
    return undefined;
  },
  check(b) {
    for (let p = 0; p < b.length;) {
      if (p + 4 > b.length) return 'truncated APL item';
      const family = readU16(b, p);
      const len = b[p + 3]! & 0x7f;
      const size = family === 1 ? 4 : family === 2 ? 16 : 0;
      if (!size) return `APL address family ${family} has no presentation form`;
      if (b[p + 2]! > size * 8 || len > size) return 'APL prefix or address too long';
      if (p + 4 + len > b.length) return 'truncated APL item';
      if (len > 0 && b[p + 3 + len] === 0)
        return 'APL address with trailing zero octets (RFC 3123 section 4)';
      p += 4 + len;
    }
    return undefined;
  },
  print(b) {
    const items: string[] = [];
    for (let p = 0; p < b.length;) {
      const family = readU16(b, p);
      const len = b[p + 3]! & 0x7f;
      const addr = new Uint8Array(family === 1 ? 4 : 16);
      addr.set(b.subarray(p + 4, p + 4 + len));
      const text = family === 1 ? ipv4Text(addr, 0) : ipv6Text(addr, 0);
      items.push(`${b[p + 3]! & 0x80 ? '!' : ''}${family}:${text}/${b[p + 2]}`);
      p += 4 + len;
    }
    return items.join(' ');
  },
};

const DSYNC_SCHEMES: ReadonlyMap<string, number> = new Map([['NOTIFY', 1]]);

export const DSYNC_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const type = typeNumber(lex.text, lex.starts[first]!, lex.ends[first]!);
    if (type < 0 || lex.flags[first]! & TOKEN_QUOTED)
      return fail(
        'ZONE_BAD_TYPE',
        'expected a type mnemonic or TYPEnnn (RFC 9859 section 2.1)',
        first,
      );
    const scheme = mnemonicToken(lex, first + 1, 255, DSYNC_SCHEMES, 'scheme');
    if (isError(scheme)) return scheme;
    const port = numberToken(lex, first + 2, 65535, 'port');
    if (isError(port)) return port;
    w.u16(type);
    w.u8(scheme);
    w.u16(port);
    if (first + 3 >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'DSYNC RDATA is missing its target', -1);
    return writeNameToken(lex, first + 3, origin, w) ?? extra(lex, first + 4, 'DSYNC RDATA');
  },
  check: (b) =>
    b.length > 5 && wireNameLength(b, 5, b.length) === b.length - 5
      ? undefined
      : 'malformed DSYNC RDATA',
  print(b) {
    return `${typeName(readU16(b, 0))} ${b[2] === 1 ? 'NOTIFY' : b[2]} ${readU16(b, 3)} ${nameToText(b, 5, false)}`;
  },
};

/** HIP (RFC 8005 section 3.1): `PK-algorithm HIT public-key [rendezvous-servers...]`. */
export const HIP_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const alg = numberToken(lex, first, 255, 'public key algorithm');
    if (isError(alg)) return alg;
    const t = first + 1;
    if (t + 1 >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'HIP RDATA needs a HIT and a public key', -1);
    const hit = lex.token(t);
    if (hit.length === 0 || hit.length % 2 || hit.length > 510 || !/^[0-9a-fA-F]+$/.test(hit))
      return fail('ZONE_BAD_HEX', 'the HIT is hexadecimal octets (RFC 8005 section 3.1)', t);
    const at = w.len;
    w.u8(hit.length / 2);
    w.u8(alg);
    w.u16(0);
    writeHexToken(hit, 0, hit.length, w);
    const keyStart = w.len;
    if (!writeBase64(lex.token(t + 1), w) || w.len === keyStart)
      return fail(
        'ZONE_BAD_BASE64',
        'the public key is base64 in one token (RFC 8005 section 3.1)',
        t + 1,
      );
    const keyLen = w.len - keyStart;
    w.buf[at + 2] = keyLen >> 8;
    w.buf[at + 3] = keyLen & 255;
    for (let r = t + 2; r < lex.count; r++) {
      const problem = writeNameToken(lex, r, origin, w);
      if (problem) return problem;
    }
    return undefined;
  },
  check(b) {
    if (b.length < 4) return 'truncated';
    let p = 4 + b[0]! + readU16(b, 2);
    if (b[0] === 0 || readU16(b, 2) === 0 || p > b.length)
      return 'HIT or public key missing or truncated';
    while (p < b.length) {
      const n = wireNameLength(b, p, b.length);
      if (n < 0) return 'malformed rendezvous server name';
      p += n;
    }
    return undefined;
  },
  print(b) {
    const hitEnd = 4 + b[0]!;
    const keyEnd = hitEnd + readU16(b, 2);
    const parts = [
      String(b[1]),
      toHex(b.subarray(4, hitEnd)),
      toBase64(b.subarray(hitEnd, keyEnd)),
    ];
    for (let p = keyEnd; p < b.length; p += wireNameLength(b, p, b.length))
      parts.push(nameToText(b, p, false));
    return parts.join(' ');
  },
};

/** AMTRELAY (RFC 8777 section 4.3): `precedence D-bit type relay`; D shares an octet with the type. */
export const AMTRELAY_CODEC: RdataCodec = {
  parse(lex, first, origin, w) {
    const prec = numberToken(lex, first, 255, 'precedence');
    if (isError(prec)) return prec;
    const d = numberToken(lex, first + 1, 1, 'discovery optional bit (0 or 1)');
    if (isError(d)) return d;
    const type = numberToken(lex, first + 2, 127, 'relay type');
    if (isError(type)) return type;
    if (type > 3)
      return fail(
        'ZONE_BAD_RDATA',
        'relay type is 0 (none), 1 (IPv4), 2 (IPv6) or 3 (name)',
        first + 2,
      );
    w.u8(prec);
    w.u8((d << 7) | type);
    const t = first + 3;
    if (t >= lex.count) {
      return type === 0
        ? undefined
        : fail('ZONE_MISSING_RDATA', 'AMTRELAY RDATA is missing its relay', -1);
    }
    const problem = writeGateway(lex, t, type, 'relay', 'RFC 8777 section 4.3', origin, w);
    if (problem) return problem;
    return extra(lex, t + 1, 'AMTRELAY RDATA');
  },
  check(b) {
    if (b.length < 2) return 'truncated';
    const type = b[1]! & 0x7f;
    if (type > 3) return 'unknown relay type';
    if (2 + gatewayLength(b, 2, type) === b.length) return undefined;
    return [
      'relay type 0 has no relay',
      'an IPv4 relay is 4 octets',
      'an IPv6 relay is 16 octets',
      'malformed relay name',
    ][type];
  },
  print(b) {
    const type = b[1]! & 0x7f;
    return `${b[0]} ${b[1]! >> 7} ${type} ${gatewayText(b, 2, type)}`;
  },
};

/** DOA (draft-durand-doa-over-dns): `enterprise type location "media-type" data` (base64 or `-`). */
export const DOA_CODEC: RdataCodec = {
  parse(lex, first, _origin, w) {
    const ent = numberToken(lex, first, 0xffffffff, 'enterprise');
    if (isError(ent)) return ent;
    const type = numberToken(lex, first + 1, 0xffffffff, 'type');
    if (isError(type)) return type;
    const loc = numberToken(lex, first + 2, 255, 'location');
    if (isError(loc)) return loc;
    w.u32(ent);
    w.u32(type);
    w.u8(loc);
    const t = first + 3;
    if (t + 1 >= lex.count)
      return fail('ZONE_MISSING_RDATA', 'DOA RDATA needs a media type and data (or -)', -1);
    const at = w.len;
    w.u8(0);
    const n = writeStringBytes(
      lex.text,
      lex.starts[t]!,
      lex.ends[t]!,
      w,
      (lex.flags[t]! & TOKEN_ESCAPED) !== 0,
    );
    if (n < 0 || n > 255)
      return fail(
        'ZONE_BAD_RDATA',
        'the media type is a <character-string> of at most 255 octets',
        t,
      );
    w.buf[at] = n;
    if (t + 2 === lex.count && lex.token(t + 1) === '-' && !(lex.flags[t + 1]! & TOKEN_QUOTED))
      return undefined;
    return base64Tokens(lex, t + 1, w);
  },
  check: (b) => (b.length >= 10 && 10 + b[9]! <= b.length ? undefined : 'truncated DOA RDATA'),
  print(b) {
    const mediaEnd = 10 + b[9]!;
    const data = mediaEnd < b.length ? toBase64(b.subarray(mediaEnd)) : '-';
    return `${readU32(b, 0)} ${readU32(b, 4)} ${b[8]} ${quoteString(b, 10, mediaEnd)} ${data}`;
  },
};
