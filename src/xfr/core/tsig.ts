/**
 * TSIG (RFC 8945), the pure parts: reading a message's TSIG record, the
 * octets a MAC covers (section 4.3.3), writing the record. The HMAC is passed
 * in (`src/xfr/tsig.ts`). Every message of a multi-message answer is signed
 * here, as BIND and Knot do (section 5.3.1).
 */
import { keyToWire } from '../../dns/core/wire/name.ts';
import { CLASS_ANY, TYPE_TSIG } from '../../dns/core/rr/types.ts';
import { err, ok, type Failure, type Result } from '../../kit/core/result.ts';
import type { TsigRequestCode } from './codes.ts';

/** TSIG error codes (RFC 8945 section 3). */
export const TSIG_BADSIG = 16;
export const TSIG_BADKEY = 17;
export const TSIG_BADTIME = 18;
export const TSIG_BADTRUNC = 22;

/** The mnemonics of the TSIG errors (RFC 8945 section 3), for logs. */
export const TSIG_ERROR_NAMES: Readonly<Record<number, string>> = {
  [TSIG_BADSIG]: 'BADSIG',
  [TSIG_BADKEY]: 'BADKEY',
  [TSIG_BADTIME]: 'BADTIME',
  [TSIG_BADTRUNC]: 'BADTRUNC',
};

/** The TSIG error an answer to a request failing with each code carries (RFC 8945 section 5.2). */
export const TSIG_ERROR_OF: Readonly<Record<TsigRequestCode, number>> = {
  TSIG_BAD_KEY: TSIG_BADKEY,
  TSIG_BAD_SIG: TSIG_BADSIG,
  TSIG_BAD_TRUNC: TSIG_BADTRUNC,
  TSIG_BAD_TIME: TSIG_BADTIME,
};
/** NOTAUTH: the rcode of a response to a request whose TSIG failed (RFC 8945 section 5.2). */
export const RCODE_NOTAUTH = 9;

export type TsigAlgorithm =
  'hmac-md5' | 'hmac-sha1' | 'hmac-sha224' | 'hmac-sha256' | 'hmac-sha384' | 'hmac-sha512';

/** Algorithm names as they travel (RFC 8945 section 6), by our short name. */
export const ALGORITHM_NAMES: Record<TsigAlgorithm, string> = {
  'hmac-md5': 'hmac-md5.sig-alg.reg.int.',
  'hmac-sha1': 'hmac-sha1.',
  'hmac-sha224': 'hmac-sha224.',
  'hmac-sha256': 'hmac-sha256.',
  'hmac-sha384': 'hmac-sha384.',
  'hmac-sha512': 'hmac-sha512.',
};

/** A key: its name (lowercase, absolute), algorithm and secret. */
export interface TsigKey {
  readonly name: string;
  readonly algorithm: TsigAlgorithm;
  readonly secret: Uint8Array;
}

/** The HMAC, given from outside the core. */
export type Hmac = (algorithm: TsigAlgorithm, secret: Uint8Array, data: Uint8Array) => Uint8Array;

/** A TSIG record's fields but its MAC. */
export interface TsigVars {
  /** Key name as a lowercased wire key. */
  readonly keyKey: string;
  /** Algorithm name as a lowercased wire key. */
  readonly algorithmKey: string;
  /** Seconds since the epoch (48 bits). */
  readonly timeSigned: number;
  readonly fudge: number;
  readonly originalId: number;
  readonly error: number;
  readonly other: Uint8Array;
}

export interface TsigRecord extends TsigVars {
  readonly mac: Uint8Array;
  /** Offset where the TSIG record starts (the message without it ends there). */
  readonly start: number;
}

/** A copy of `msg[from, to)` (Buffer#slice would be a view). */
function copy(msg: Uint8Array, from: number, to: number): Uint8Array {
  return new Uint8Array(msg.subarray(from, to));
}

/** Read a (possibly compressed) name as a lowercased wire key; returns [key, offset after]. */
function readName(msg: Uint8Array, off: number): [string, number] | undefined {
  let key = '';
  let end = -1;
  for (let guard = 0; guard < 128; guard++) {
    if (off >= msg.length) return undefined;
    const l = msg[off]!;
    if ((l & 0xc0) === 0xc0) {
      if (off + 1 >= msg.length) return undefined;
      if (end < 0) end = off + 2;
      off = ((l & 0x3f) << 8) | msg[off + 1]!;
      continue;
    }
    if (l > 63 || off + 1 + l > msg.length) return undefined;
    key += String.fromCharCode(l);
    for (let i = off + 1; i <= off + l; i++) {
      const c = msg[i]!;
      key += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
    }
    off += 1 + l;
    if (l === 0) return [key, end < 0 ? off : end];
  }
  return undefined;
}

/** Skip one resource record; the offset after it, or -1. */
function skipRecord(msg: Uint8Array, off: number): number {
  const n = readName(msg, off);
  if (n === undefined) return -1;
  off = n[1];
  if (off + 10 > msg.length) return -1;
  const end = off + 10 + ((msg[off + 8]! << 8) | msg[off + 9]!);
  return end > msg.length ? -1 : end;
}

/** The TSIG record (last, RFC 8945 section 5.1); 'FORMERR' when malformed or not last. */
export function readTsig(msg: Uint8Array): TsigRecord | undefined | 'FORMERR' {
  if (msg.length < 12) return 'FORMERR';
  const counts = [4, 6, 8, 10].map((o) => (msg[o]! << 8) | msg[o + 1]!);
  const total = counts[0]! + counts[1]! + counts[2]! + counts[3]!;
  if (counts[3] === 0) return undefined;
  let off = 12;
  for (let i = 0; i < counts[0]!; i++) {
    const n = readName(msg, off);
    if (n === undefined || n[1] + 4 > msg.length) return 'FORMERR';
    off = n[1] + 4;
  }
  let last = -1;
  for (let i = counts[0]!; i < total; i++) {
    last = off;
    off = skipRecord(msg, off);
    if (off < 0) return 'FORMERR';
    if (i < total - 1) {
      const n = readName(msg, last)!;
      const type = (msg[n[1]]! << 8) | msg[n[1] + 1]!;
      if (type === TYPE_TSIG) return 'FORMERR';
    }
  }
  const owner = readName(msg, last)!;
  let p = owner[1];
  const type = (msg[p]! << 8) | msg[p + 1]!;
  if (type !== TYPE_TSIG) return undefined;
  const rdEnd = p + 10 + ((msg[p + 8]! << 8) | msg[p + 9]!);
  p += 10;
  const alg = readName(msg, p);
  if (alg === undefined) return 'FORMERR';
  p = alg[1];
  if (p + 10 > rdEnd) return 'FORMERR';
  const timeSigned =
    ((msg[p]! << 8) | msg[p + 1]!) * 2 ** 32 +
    (((msg[p + 2]! << 24) | (msg[p + 3]! << 16) | (msg[p + 4]! << 8) | msg[p + 5]!) >>> 0);
  const fudge = (msg[p + 6]! << 8) | msg[p + 7]!;
  const macLen = (msg[p + 8]! << 8) | msg[p + 9]!;
  p += 10;
  if (p + macLen + 6 > rdEnd) return 'FORMERR';
  const mac = copy(msg, p, p + macLen);
  p += macLen;
  const originalId = (msg[p]! << 8) | msg[p + 1]!;
  const error = (msg[p + 2]! << 8) | msg[p + 3]!;
  const otherLen = (msg[p + 4]! << 8) | msg[p + 5]!;
  p += 6;
  if (p + otherLen !== rdEnd || rdEnd !== off || off !== msg.length) return 'FORMERR';
  return {
    keyKey: owner[0],
    algorithmKey: alg[0],
    timeSigned,
    fudge,
    mac,
    originalId,
    error,
    other: copy(msg, p, p + otherLen),
    start: last,
  };
}

const EMPTY = new Uint8Array(0);

/** Two octets, network order. */
const u16 = (n: number) => [(n >>> 8) & 0xff, n & 0xff];

/** Time Signed (48 bits) and Fudge: the timers of RFC 8945 section 4.3.3. */
function timers(v: TsigVars): number[] {
  const t = v.timeSigned;
  return [
    ...u16(Math.floor(t / 2 ** 32)),
    ...u16((t >>> 16) & 0xffff),
    ...u16(t & 0xffff),
    ...u16(v.fudge),
  ];
}

/** Octets of the TSIG variables (RFC 8945 section 4.3.3); `timersOnly` for later messages of a stream. */
function variables(v: TsigVars, timersOnly: boolean): Uint8Array {
  if (timersOnly) return Uint8Array.from(timers(v));
  const head = [
    ...keyToWire(v.keyKey),
    ...u16(CLASS_ANY),
    0,
    0,
    0,
    0,
    ...keyToWire(v.algorithmKey),
  ];
  return Uint8Array.from([
    ...head,
    ...timers(v),
    ...u16(v.error),
    ...u16(v.other.length),
    ...v.other,
  ]);
}

/** What a MAC covers: [prior MAC], the message (TSIG removed, original ID), the variables. */
export function signingInput(
  message: Uint8Array,
  v: TsigVars,
  prior: Uint8Array | undefined,
  timersOnly = false,
): Uint8Array {
  const { originalId } = v;
  const vars = variables(v, timersOnly);
  const pre = prior === undefined ? 0 : 2 + prior.length;
  const out = new Uint8Array(pre + message.length + vars.length);
  if (prior !== undefined) {
    out[0] = prior.length >>> 8;
    out[1] = prior.length & 0xff;
    out.set(prior, 2);
  }
  out.set(message, pre);
  out[pre] = originalId >>> 8;
  out[pre + 1] = originalId & 0xff;
  out.set(vars, pre + message.length);
  return out;
}

/** A MAC may be truncated to half its length and at least 10 octets (RFC 8945 section 5.2.2.1). */
export function macLengthAllowed(macLength: number, fullLength: number): boolean {
  return macLength <= fullLength && macLength >= 10 && macLength >= fullLength / 2;
}

/** The message without its TSIG record (ARCOUNT less one). */
export function stripTsig(msg: Uint8Array, t: TsigRecord): Uint8Array {
  const out = copy(msg, 0, t.start);
  const ar = ((out[10]! << 8) | out[11]!) - 1;
  out[10] = ar >>> 8;
  out[11] = ar & 0xff;
  return out;
}

/** The message with a TSIG record appended (ARCOUNT plus one). */
export function appendTsig(message: Uint8Array, v: TsigVars, mac: Uint8Array): Uint8Array {
  const rdata = [
    ...keyToWire(v.algorithmKey),
    ...timers(v),
    ...u16(mac.length),
    ...mac,
    ...u16(v.originalId),
    ...u16(v.error),
    ...u16(v.other.length),
    ...v.other,
  ];
  const owner = keyToWire(v.keyKey);
  const rr = [...owner, ...u16(TYPE_TSIG), ...u16(CLASS_ANY), 0, 0, 0, 0, ...u16(rdata.length)];
  const out = new Uint8Array(message.length + rr.length + rdata.length);
  out.set(message);
  out.set(rr, message.length);
  out.set(rdata, message.length + rr.length);
  const ar = ((out[10]! << 8) | out[11]!) + 1;
  out[10] = ar >>> 8;
  out[11] = ar & 0xff;
  return out;
}

/** Constant-time comparison of two MACs. */
export function sameMac(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

/** Why a request's TSIG failed, the TSIG error to answer, and the key when known (BADTIME is signed). */
export interface TsigFailure extends Failure<TsigRequestCode> {
  readonly tsigError: number;
  readonly tsig: TsigRecord;
  readonly key?: TsigKey;
}

export interface TsigVerified {
  readonly key: TsigKey;
  readonly tsig: TsigRecord;
}

export type TsigCheck = Result<TsigVerified, TsigFailure>;

function tsigFailure(
  code: TsigRequestCode,
  message: string,
  tsig: TsigRecord,
  key?: TsigKey,
): TsigCheck {
  return err({ code, message, tsigError: TSIG_ERROR_OF[code], tsig, ...(key ? { key } : {}) });
}

/** Verify a signed request (RFC 8945 section 5.2): key, then MAC (or truncation), then time. */
export function verifyRequest(
  msg: Uint8Array,
  t: TsigRecord,
  keys: ReadonlyMap<string, TsigKey>,
  hmac: Hmac,
  now: number,
): TsigCheck {
  const key = keys.get(t.keyKey);
  if (key === undefined || algorithmKeyOf(key) !== t.algorithmKey)
    return tsigFailure('TSIG_BAD_KEY', 'the key is not known, or not of the algorithm named', t);
  const full = hmac(key.algorithm, key.secret, signingInput(stripTsig(msg, t), t, undefined));
  if (t.mac.length < full.length && !macLengthAllowed(t.mac.length, full.length)) {
    return t.mac.length === 0
      ? tsigFailure('TSIG_BAD_SIG', 'an empty MAC', t, key)
      : tsigFailure('TSIG_BAD_TRUNC', `a MAC truncated to ${t.mac.length} octets`, t, key);
  }
  if (!sameMac(full.subarray(0, t.mac.length), t.mac))
    return tsigFailure('TSIG_BAD_SIG', 'the MAC does not verify', t, key);
  if (Math.abs(now - t.timeSigned) > t.fudge)
    return tsigFailure(
      'TSIG_BAD_TIME',
      `signed at ${t.timeSigned}, now ${now} (fudge ${t.fudge})`,
      t,
      key,
    );
  return ok({ key, tsig: t });
}

export function algorithmKeyOf(key: TsigKey): string {
  return nameWireKey(ALGORITHM_NAMES[key.algorithm]);
}

/** The lowercased wire key of a presentation name made of plain labels. */
export function nameWireKey(name: string): string {
  let out = '';
  for (const label of name.toLowerCase().split('.')) {
    if (label === '') continue;
    out += String.fromCharCode(label.length) + label;
  }
  return `${out}\u0000`;
}

/** Signs the messages of one answer in order (RFC 8945 sections 5.3 and 5.3.1). */
export class TsigSigner {
  private prior: Uint8Array | undefined;
  private first = true;
  readonly key: TsigKey;
  private readonly hmac: Hmac;
  private readonly now: number;
  private readonly options: { fudge?: number; error?: number; other?: Uint8Array };

  constructor(
    key: TsigKey,
    hmac: Hmac,
    now: number,
    requestMac: Uint8Array | undefined,
    options: TsigSigner['options'] = {},
  ) {
    this.key = key;
    this.hmac = hmac;
    this.now = now;
    this.prior = requestMac;
    this.options = options;
  }

  sign(message: Uint8Array): Uint8Array {
    const k = this.key;
    const v: TsigVars = {
      keyKey: nameWireKey(k.name),
      algorithmKey: algorithmKeyOf(k),
      timeSigned: this.now,
      fudge: this.options.fudge ?? 300,
      originalId: (message[0]! << 8) | message[1]!,
      error: this.options.error ?? 0,
      other: this.options.other ?? EMPTY,
    };
    const mac = this.hmac(k.algorithm, k.secret, signingInput(message, v, this.prior, !this.first));
    this.prior = mac;
    this.first = false;
    return appendTsig(message, v, mac);
  }

  /** The room a TSIG record takes on a message. */
  static room(key: TsigKey): number {
    // Owner, type to RDLENGTH, algorithm, the fixed fields and a MAC of at most 64 octets.
    return nameWireKey(key.name).length + 10 + algorithmKeyOf(key).length + 16 + 64 + 6 + 6;
  }
}

/** What the stream verifier found wrong with a message. */
export interface TsigStreamFault {
  readonly code: 'XFR_TSIG_MISSING' | 'XFR_TSIG_BAD' | 'XFR_TSIG_ERROR';
  readonly message: string;
}

/** Verifies an answer to our signed request (RFC 8945 5.3.1): first and last signed, 99 unsigned at most. */
export class TsigStreamVerifier {
  private prior: Uint8Array;
  private readonly key: TsigKey;
  private readonly hmac: Hmac;
  private readonly now: number;
  private readonly keyKey: string;
  private readonly algKey: string;
  private pending: Uint8Array[] = [];
  private signedOnce = false;
  private lastSigned = false;

  constructor(key: TsigKey, hmac: Hmac, requestMac: Uint8Array, now: number) {
    this.key = key;
    this.hmac = hmac;
    this.prior = requestMac;
    this.now = now;
    this.keyKey = nameWireKey(key.name);
    this.algKey = algorithmKeyOf(key);
  }

  /** Check one message of the answer; undefined when it is acceptable. */
  check(msg: Uint8Array, index: number): TsigStreamFault | undefined {
    const fault = (code: TsigStreamFault['code'], message: string) => ({ code, message });
    const t = readTsig(msg);
    if (t === 'FORMERR')
      return fault('XFR_TSIG_BAD', `message ${index + 1}: a malformed TSIG record`);
    if (t === undefined) {
      this.lastSigned = false;
      if (!this.signedOnce)
        return fault('XFR_TSIG_MISSING', 'the first message of the answer is not signed');
      this.pending.push(msg);
      if (this.pending.length > 99)
        return fault('XFR_TSIG_MISSING', `message ${index + 1}: 100 unsigned messages in a row`);
      return undefined;
    }
    if (t.error !== 0) return fault('XFR_TSIG_ERROR', `the primary answered TSIG error ${t.error}`);
    if (t.keyKey !== this.keyKey || t.algorithmKey !== this.algKey)
      return fault('XFR_TSIG_BAD', `message ${index + 1}: signed with another key or algorithm`);
    const parts = [...this.pending, stripTsig(msg, t)];
    const body = new Uint8Array(parts.reduce((s, m) => s + m.length, 0));
    let o = 0;
    for (const m of parts) {
      body.set(m, o);
      o += m.length;
    }
    const input = signingInput(body, t, this.prior, this.signedOnce);
    const full = this.hmac(this.key.algorithm, this.key.secret, input);
    const macOk = macLengthAllowed(t.mac.length, full.length);
    if (!macOk || !sameMac(full.subarray(0, t.mac.length), t.mac))
      return fault('XFR_TSIG_BAD', `message ${index + 1}: the MAC does not verify`);
    if (Math.abs(this.now - t.timeSigned) > t.fudge)
      return fault(
        'XFR_TSIG_BAD',
        `message ${index + 1}: signed at ${t.timeSigned}, now ${this.now} (fudge ${t.fudge})`,
      );
    this.prior = t.mac;
    this.pending = [];
    this.signedOnce = true;
    this.lastSigned = true;
    return undefined;
  }

  /** At the end of the answer: its last message must have been signed. */
  finish(): TsigStreamFault | undefined {
    return this.lastSigned
      ? undefined
      : { code: 'XFR_TSIG_MISSING', message: 'the last message of the answer is not signed' };
  }
}
