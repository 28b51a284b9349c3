/**
 * SVCB and HTTPS RDATA (RFC 9460), with `dohpath` (RFC 9461) and `ohttp`
 * (RFC 9540). Keys in any order, never repeated, unknown ones as `keyNNNNN`;
 * on the wire in increasing order; `mandatory` keys listed in strictly
 * increasing order, present, never itself. As BIND: `no-default-alpn`
 * without `alpn` is refused; a dohpath must start with `/` and hold `dns`.
 * As Knot: in comma lists (appendix A.1) a backslash other than `\,` or `\\`
 * is an error; an empty `ech` is refused. Printed as BIND prints, but
 * dohpath keeps its mnemonic and ohttp is printed `key8`.
 */
import { latin1 } from '../../../../kit/core/bytes.ts';
import { decodeUtf8Strict } from '../../../../kit/core/utf8.ts';
import type { ZoneCode } from '../../zone/codes.ts';
import type { Lexer } from '../../zone/lexer.ts';
import { TOKEN_ESCAPED, TOKEN_QUOTED } from '../../zone/lexer.ts';
import { nameToText, wireNameLength } from '../../zone/names.ts';
import {
  ByteWriter,
  RDATA_SCRATCH_SIZE,
  badEscape,
  fail,
  ipv4Text,
  ipv6Text,
  parseUint,
  quoteString,
  readU16,
  toBase64,
  writeAddress,
  writeBase64,
  writeNameToken,
  writeStringBytes,
  type RdataCodec,
  type RdataError,
} from './layout.ts';

const MANDATORY = 0;
const ALPN = 1;
const NO_DEFAULT_ALPN = 2;
const DOHPATH = 7;
const OHTTP = 8;

/** Key number of `text[s, e)` (a mnemonic or keyNNNNN), -1 when unknown or malformed. */
function keyNumber(text: string, s: number, e: number): number {
  const name = text.slice(s, e);
  const known = KEYS.findIndex((k) => k.name === name);
  if (known >= 0) return known;
  if (!name.startsWith('key') || e - s < 4 || e - s > 8) return -1;
  // no leading zeros
  if (name.charCodeAt(3) === 0x30 && e - s > 4) return -1;
  const v = parseUint(text, s + 3, e, 65535);
  return v < 0 ? -1 : v;
}

function keyText(key: number): string {
  return key <= DOHPATH ? KEYS[key]!.name : `key${key}`;
}

/** The items of a comma-separated list (RFC 9460 appendix A.1); a string: why it is malformed. */
function splitList(bytes: Uint8Array, escapes: boolean): Uint8Array[] | string {
  const items: Uint8Array[] = [];
  let cur: number[] = [];
  for (let i = 0; i <= bytes.length; i++) {
    const c = i < bytes.length ? bytes[i]! : 0x2c;
    if (c === 0x2c) {
      if (cur.length === 0) return 'empty item in a comma-separated list';
      items.push(Uint8Array.from(cur));
      cur = [];
      continue;
    }
    if (c === 0x5c && escapes) {
      const n = bytes[i + 1];
      if (n !== 0x2c && n !== 0x5c)
        return 'a backslash in a list item must escape a comma or a backslash (RFC 9460 appendix A.1)';
      cur.push(n);
      i++;
      continue;
    }
    cur.push(c);
  }
  return items;
}

/** Why a dohpath value is not a relative URI template with a `dns` variable, or undefined. */
function dohpathProblem(v: Uint8Array): string | undefined {
  const text = decodeUtf8Strict(v);
  if (text === undefined) return 'dohpath is not UTF-8 (RFC 9461 section 5)';
  if (!text.startsWith('/'))
    return 'dohpath must be a relative URI template starting with / (RFC 9461 section 5)';
  let dns = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '{') continue;
    const close = text.indexOf('}', i);
    if (close < 0) return 'dohpath has an unclosed { expression (RFC 6570)';
    let expr = text.slice(i + 1, close);
    if ('+#./;?&'.includes(expr[0] ?? '')) expr = expr.slice(1);
    for (const v of expr.split(',')) if (v.replace(/(\*|:[0-9]+)$/, '') === 'dns') dns = true;
    i = close;
  }
  return dns
    ? undefined
    : 'dohpath must contain the "dns" variable, as in /dns-query{?dns} (RFC 9461 section 5)';
}

/**
 * The keys with a mnemonic, by number (RFC 9460 section 14.3.2): why a wire
 * value is not valid; for those read in their own syntax, the presentation
 * value (octets, escapes resolved) into wire form (a string: why it is
 * malformed) and back (the others: their octets as they are, printed as a
 * quoted character-string).
 */
interface SvcKey {
  readonly name: string;
  readonly problem: (v: Uint8Array) => string | undefined;
  readonly encode?: (v: Uint8Array, w: ByteWriter) => string | undefined;
  readonly print?: (v: Uint8Array) => string;
}

const noValue = (name: string) => (v: Uint8Array) =>
  v.length === 0 ? undefined : `${name} takes no value`;

/** ipv4hint, ipv6hint: a comma list of addresses of `size` octets. */
function hints(name: string, size: 4 | 16): SvcKey {
  const ip = `IPv${size === 4 ? 4 : 6}`;
  return {
    name,
    problem: (v) =>
      v.length > 0 && v.length % size === 0
        ? undefined
        : `${name} lists one or more ${ip} addresses`,
    encode(v, w) {
      const items = splitList(v, false);
      if (typeof items === 'string') return items;
      for (const it of items) {
        const s = latin1(it);
        if (!writeAddress(s, 0, s.length, size, w))
          return `${JSON.stringify(s)} is not an ${ip} address`;
      }
      return undefined;
    },
    print(v) {
      const a: string[] = [];
      for (let i = 0; i < v.length; i += size) a.push(size === 4 ? ipv4Text(v, i) : ipv6Text(v, i));
      return a.join(',');
    },
  };
}

const KEYS: readonly SvcKey[] = [
  {
    name: 'mandatory',
    problem(v) {
      if (v.length === 0 || v.length % 2) return 'mandatory lists one or more keys';
      let prev = -1;
      for (let p = 0; p < v.length; p += 2) {
        const k = readU16(v, p);
        if (k === MANDATORY) return 'mandatory may not list itself (RFC 9460 section 8)';
        if (k <= prev) return 'mandatory keys must be distinct (in increasing order on the wire)';
        prev = k;
      }
      return undefined;
    },
    encode(v, w) {
      const items = splitList(v, false);
      if (typeof items === 'string') return items;
      const keys: number[] = [];
      for (const it of items) {
        const name = latin1(it);
        const k = keyNumber(name, 0, name.length);
        if (k < 0) return `unknown key ${JSON.stringify(name)} in mandatory`;
        if (keys.includes(k)) return `key ${name} is listed twice in mandatory`;
        keys.push(k);
      }
      for (const k of keys.sort((a, b) => a - b)) w.u16(k);
      return undefined;
    },
    print(v) {
      const names: string[] = [];
      for (let i = 0; i < v.length; i += 2) names.push(keyText(readU16(v, i)));
      return names.join(',');
    },
  },
  {
    name: 'alpn',
    problem(v) {
      if (v.length === 0) return 'alpn needs one or more protocol ids';
      for (let p = 0; p < v.length; p += 1 + v[p]!)
        if (v[p] === 0 || p + 1 + v[p]! > v.length) return 'alpn ids are non-empty strings';
      return undefined;
    },
    encode(v, w) {
      const items = splitList(v, true);
      if (typeof items === 'string') return items;
      for (const it of items) {
        if (it.length > 255) return 'an alpn id is at most 255 octets';
        w.u8(it.length);
        w.bytes(it);
      }
      return undefined;
    },
    print(v) {
      // List escapes first (\, and \\), then the char-string's own.
      const items: number[] = [];
      for (let i = 0; i < v.length; i += 1 + v[i]!) {
        if (i > 0) items.push(0x2c);
        for (let k = i + 1; k <= i + v[i]!; k++) {
          if (v[k] === 0x2c || v[k] === 0x5c) items.push(0x5c);
          items.push(v[k]!);
        }
      }
      return quoteString(Uint8Array.from(items), 0, items.length);
    },
  },
  { name: 'no-default-alpn', problem: noValue('no-default-alpn') },
  {
    name: 'port',
    problem: (v) => (v.length === 2 ? undefined : 'port is one number 0-65535'),
    encode(v, w) {
      const s = latin1(v);
      const n = parseUint(s, 0, s.length, 65535);
      if (n < 0) return 'port is one number 0-65535';
      w.u16(n);
      return undefined;
    },
    print: (v) => String(readU16(v, 0)),
  },
  hints('ipv4hint', 4),
  {
    name: 'ech',
    problem: (v) => (v.length > 0 ? undefined : 'ech needs a base64 ECHConfigList'),
    encode: (v, w) =>
      writeBase64(latin1(v), w) ? undefined : 'ech must be base64 (RFC 4648 section 4)',
    print: toBase64,
  },
  hints('ipv6hint', 16),
  { name: 'dohpath', problem: dohpathProblem },
  { name: 'ohttp', problem: noValue('ohttp') },
];

/** Made on first use: a module-level `new ByteWriter()` would run before rdata.ts when this module is loaded first. */
// eslint-disable-next-line no-restricted-syntax -- module state: a scratch buffer, used within one synchronous call.
let scratchWriter: ByteWriter | undefined;

function parseSvcb(
  lex: Lexer,
  first: number,
  origin: Uint8Array | undefined,
  w: ByteWriter,
  type: number,
): RdataError | undefined {
  const text = lex.text;
  const count = lex.count;
  const tname = type === 65 ? 'HTTPS' : 'SVCB';
  const prio =
    lex.flags[first]! & TOKEN_QUOTED
      ? -1
      : parseUint(text, lex.starts[first]!, lex.ends[first]!, 65535);
  if (prio < 0)
    return fail(
      'ZONE_BAD_NUMBER',
      'SvcPriority must be a number 0-65535 (RFC 9460 section 2.1)',
      first,
    );
  w.u16(prio);
  if (first + 1 >= count)
    return fail(
      'ZONE_MISSING_RDATA',
      `${tname} RDATA is missing its TargetName (RFC 9460 section 2.1)`,
      -1,
    );
  const nameProblem = writeNameToken(lex, first + 1, origin, w);
  if (nameProblem) return nameProblem;
  const scratch = (scratchWriter ??= new ByteWriter(RDATA_SCRATCH_SIZE));
  const params: { key: number; value: Uint8Array; tok: number }[] = [];
  for (let t = first + 2; t < count; t++) {
    const s = lex.starts[t]!;
    const e = lex.ends[t]!;
    const tok = t;
    if (lex.flags[t]! & TOKEN_QUOTED)
      return fail('ZONE_SVCB_BAD_PARAM', 'a SvcParam is key or key=value, its key not quoted', t);
    let eq = s;
    while (eq < e && text.charCodeAt(eq) !== 0x3d) eq++;
    const key = keyNumber(text, s, eq);
    if (key < 0)
      return fail(
        'ZONE_SVCB_UNKNOWN_KEY',
        `unknown SvcParamKey ${JSON.stringify(text.slice(s, eq))} (mandatory, alpn, no-default-alpn, port, ipv4hint, ech, ipv6hint, dohpath, ohttp or keyNNNNN, RFC 9460 section 14.3.2)`,
        t,
      );
    if (params.some((p) => p.key === key))
      return fail(
        'ZONE_SVCB_DUPLICATE_KEY',
        `SvcParamKey ${keyText(key)} appears twice (RFC 9460 section 2.1)`,
        t,
      );
    let hasValue = eq < e;
    let vs = eq + 1;
    let ve = e;
    let escaped = (lex.flags[t]! & TOKEN_ESCAPED) !== 0;
    // key="quoted value": the lexer gives `key=` and the quoted string as two adjacent tokens.
    if (
      hasValue &&
      vs === e &&
      t + 1 < count &&
      lex.flags[t + 1]! & TOKEN_QUOTED &&
      lex.starts[t + 1] === e + 1
    ) {
      t++;
      vs = lex.starts[t]!;
      ve = lex.ends[t]!;
      escaped = (lex.flags[t]! & TOKEN_ESCAPED) !== 0;
    }
    scratch.reset();
    if (hasValue && writeStringBytes(text, vs, ve, scratch, escaped) < 0) return badEscape(tok);
    const raw = scratch.buf.slice(0, scratch.len);
    if (raw.length === 0) hasValue = false;
    const generic = key > OHTTP || text.startsWith('key', s);
    let value: Uint8Array;
    const encode = generic ? undefined : KEYS[key]!.encode;
    if (!encode) value = raw;
    else {
      if (!hasValue)
        return fail(
          'ZONE_SVCB_BAD_VALUE',
          `${keyText(key)} needs a value (RFC 9460 section 7)`,
          tok,
        );
      scratch.reset();
      const problem = encode(raw, scratch);
      if (problem) return fail('ZONE_SVCB_BAD_VALUE', problem, tok);
      value = scratch.buf.slice(0, scratch.len);
    }
    const problem = KEYS[key]?.problem(value);
    if (problem) return fail('ZONE_SVCB_BAD_VALUE', problem, tok);
    if (value.length > 65535)
      return fail('ZONE_RDATA_TOO_LONG', 'SvcParamValue longer than 65535 octets', tok);
    params.push({ key, value, tok });
  }
  const problem = crossProblem(
    params.map((p) => p.key),
    params.find((p) => p.key === MANDATORY)?.value,
  );
  if (problem) {
    const at = params.find((p) => p.key === (problem.key ?? -1))?.tok ?? first;
    return fail(problem.code, problem.message, at);
  }
  params.sort((a, b) => a.key - b.key);
  for (const p of params) {
    w.u16(p.key);
    w.u16(p.value.length);
    w.bytes(p.value);
  }
  return undefined;
}

/** Rules across the SvcParams of one record (self-consistency, RFC 9460 sections 2.4.3, 7.1.1, 8). */
function crossProblem(
  keys: readonly number[],
  mandatory: Uint8Array | undefined,
): { code: ZoneCode; message: string; key?: number } | undefined {
  if (mandatory)
    for (let p = 0; p < mandatory.length; p += 2) {
      const k = readU16(mandatory, p);
      if (!keys.includes(k))
        return {
          code: 'ZONE_SVCB_MANDATORY',
          message: `mandatory lists ${keyText(k)}, which the record does not have (RFC 9460 section 8)`,
          key: MANDATORY,
        };
    }
  if (keys.includes(NO_DEFAULT_ALPN) && !keys.includes(ALPN))
    return {
      code: 'ZONE_SVCB_INCONSISTENT',
      message:
        'no-default-alpn without alpn (RFC 9460 section 7.1.1: the record is not self-consistent)',
      key: NO_DEFAULT_ALPN,
    };
  return undefined;
}

function checkSvcb(rdata: Uint8Array): string | undefined {
  if (rdata.length < 3) return 'truncated';
  const nl = wireNameLength(rdata, 2, rdata.length);
  if (nl < 0) return 'malformed TargetName';
  let p = 2 + nl;
  const keys: number[] = [];
  let mandatory: Uint8Array | undefined;
  while (p < rdata.length) {
    if (p + 4 > rdata.length) return 'truncated SvcParam';
    const key = readU16(rdata, p);
    const len = readU16(rdata, p + 2);
    if (p + 4 + len > rdata.length) return 'truncated SvcParam';
    if (keys.length && key <= keys[keys.length - 1]!)
      return 'SvcParamKeys not in increasing order (RFC 9460 section 2.2)';
    const value = rdata.subarray(p + 4, p + 4 + len);
    const problem = KEYS[key]?.problem(value);
    if (problem) return problem;
    if (key === MANDATORY) mandatory = value;
    keys.push(key);
    p += 4 + len;
  }
  return crossProblem(keys, mandatory)?.message;
}

/** A char-string value in quotes (`"` and `\` escaped, other non-printables as \DDD). */
function printSvcb(rdata: Uint8Array): string {
  const parts = [String(readU16(rdata, 0)), nameToText(rdata, 2, false)];
  let p = 2 + wireNameLength(rdata, 2, rdata.length);
  while (p < rdata.length) {
    const key = readU16(rdata, p);
    const len = readU16(rdata, p + 2);
    const v = rdata.subarray(p + 4, p + 4 + len);
    p += 4 + len;
    const print = KEYS[key]?.print;
    if (print) parts.push(`${keyText(key)}=${print(v)}`);
    else
      parts.push(v.length === 0 ? keyText(key) : `${keyText(key)}=${quoteString(v, 0, v.length)}`);
  }
  return parts.join(' ');
}

export const SVCB_CODEC: RdataCodec = {
  parse: parseSvcb,
  check: checkSvcb,
  print: printSvcb,
};
