/**
 * The NAPTR lint's quick reading: a record with nothing to report told from
 * its octets, without decoding them. Clean: ASCII, well formed, FLAGS and
 * SERVICES without finding, exactly one of REGEXP and REPLACEMENT ("U" with a
 * REGEXP), the REGEXP's template seen valid and anchored, and the two
 * findings a template does not settle (jurisdiction warnings, a "U"
 * replacement without a scheme) ruled out on the octets. Anything else is
 * read in full by the lint, which then records the template here.
 */
import {
  NAPTR_FLAGS,
  NAPTR_REGEXP,
  NAPTR_REPLACEMENT,
  naptrLayout,
} from '../../../dns/core/rr/naptr.ts';
import { wireNameLength } from '../../../dns/core/zone/names.ts';
import { FNV_OFFSET_BASIS, FNV_PRIME, fnv1aBytes } from '../../../kit/core/hash.ts';
import { parseFlags, parseServices } from '../naptr.ts';
import { RUN, TEMPLATE_SAFE } from '../subst.ts';
import { isAlnum, lintJurisdictionPattern } from './jurisdiction.ts';

/** `QuickCheck.check`: nothing to report. */
export const CLEAN = 0;
/** `QuickCheck.check`: the RDATA does not decode (NAPTR_MALFORMED). */
export const MALFORMED = 1;
/** `QuickCheck.check`: to be read in full. */
export const LOOK = 2;

/** FLAGS and SERVICES give no finding: with a "U" flag, or another or none. */
const FS_U = 0;
const FS_OTHER = 1;

const RUN_OCTET = RUN.charCodeAt(0);

/**
 * Values by a run of octets: a direct-mapped table (newest wins, but an entry
 * found again keeps its slot once) with keys copied into one arena, which
 * starts over when full. A lookup allocates nothing.
 */
export class OctetTable<V> {
  private readonly values: (V | undefined)[];
  private readonly hashes: Int32Array;
  /** Key offset in the arena, -1 for an empty slot. */
  private readonly keyAt: Int32Array;
  private readonly keyLength: Int32Array;
  /** 1 when the slot's entry was found again since it was stored (second chance). */
  private readonly reused: Uint8Array;
  private readonly mask: number;
  private readonly maxArena: number;
  private arena: Uint8Array;
  private used = 0;

  /** `slots` a power of two; the arena grows from 16 KiB (or less) up to `maxArena`. */
  constructor(slots: number, maxArena: number) {
    this.values = new Array<V | undefined>(slots).fill(undefined);
    this.hashes = new Int32Array(slots);
    this.keyAt = new Int32Array(slots).fill(-1);
    this.keyLength = new Int32Array(slots);
    this.reused = new Uint8Array(slots);
    this.mask = slots - 1;
    this.maxArena = maxArena;
    this.arena = new Uint8Array(Math.min(maxArena, 1 << 14));
  }

  /** The value of the key `bytes[start, end)` of hash `h` (`fnv1aBytes`). */
  get(bytes: Uint8Array, start: number, end: number, h: number): V | undefined {
    const slot = h & this.mask;
    const at = this.keyAt[slot]!;
    const n = end - start;
    if (at < 0 || this.hashes[slot] !== h || this.keyLength[slot] !== n) return undefined;
    const arena = this.arena;
    const d = at - start;
    for (let i = start; i < end; i++) if (arena[d + i] !== bytes[i]) return undefined;
    this.reused[slot] = 1;
    return this.values[slot];
  }

  set(bytes: Uint8Array, start: number, end: number, h: number, value: V): void {
    const slot = h & this.mask;
    // Second chance: a zone's repeated keys are not pushed out by one-off ones.
    if (this.keyAt[slot]! >= 0 && this.reused[slot] === 1) {
      this.reused[slot] = 0;
      return;
    }
    const n = end - start;
    if (this.used + n > this.arena.length) {
      if (this.arena.length < this.maxArena) {
        const grown = new Uint8Array(Math.min(this.maxArena, 2 * (this.arena.length + n)));
        grown.set(this.arena.subarray(0, this.used));
        this.arena = grown;
      }
      if (this.used + n > this.arena.length) {
        this.keyAt.fill(-1);
        this.values.fill(undefined);
        this.used = 0;
        if (n > this.arena.length) return;
      }
    }
    const arena = this.arena;
    const d = this.used - start;
    for (let i = start; i < end; i++) arena[d + i] = bytes[i]!;
    this.keyAt[slot] = this.used;
    this.keyLength[slot] = n;
    this.hashes[slot] = h;
    this.reused[slot] = 0;
    this.used += n;
    this.values[slot] = value;
  }
}

/** A run of ASCII octets as text (undefined when one is not ASCII). */
function asciiText(bytes: Uint8Array, start: number, end: number): string | undefined {
  let s = '';
  for (let i = start; i < end; i++) {
    const c = bytes[i]!;
    if (c >= 0x80) return undefined;
    s += String.fromCharCode(c);
  }
  return s;
}

/** FLAGS and SERVICES from their octets (each with its length octet): FS_U, FS_OTHER or LOOK. */
function flagsServicesVerdict(bytes: Uint8Array, at: number, end: number): number {
  const flags = asciiText(bytes, at + 1, at + 1 + bytes[at]!);
  const s = at + 1 + bytes[at]!;
  const services = asciiText(bytes, s + 1, end);
  if (flags === undefined || services === undefined) return LOOK;
  const f = parseFlags(flags);
  if (f.kind === 'unusable') return LOOK;
  const sv = parseServices(services);
  if (!sv.ok) return LOOK;
  const flag = f.kind === 'flag' ? f.flag : undefined;
  if ((flag === 'S' || flag === 'A') && sv.value.protocol === undefined) return LOOK;
  return flag === 'U' ? FS_U : FS_OTHER;
}

const URN_LEX = 'urn:lex:';

/** Is the text at `at` "urn:lex:" (ASCII letters in any case)? */
function urnLexAt(bytes: Uint8Array, at: number, end: number): boolean {
  if (end - at < URN_LEX.length) return false;
  for (let k = 0; k < URN_LEX.length; k++) {
    let c = bytes[at + k]!;
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== URN_LEX.charCodeAt(k)) return false;
  }
  return true;
}

/** The quick reading, with its memos (bounded; shared by every lint run of a thread). */
export class QuickCheck {
  private readonly at = new Int32Array(4);
  /** Verdicts of FLAGS + SERVICES by their octets. */
  private readonly flagsServices = new OctetTable<number>(256, 1 << 14);
  /** Templates of REGEXP fields seen valid and anchored. */
  private readonly templates = new OctetTable<true>(4096, 1 << 18);
  /** The template of the last field read (`templateOf`), and its delimiters. */
  private readonly key = new Uint8Array(256);
  /** A field's octets (`validAnchoredText`). */
  private readonly text = new Uint8Array(255);
  /** `fnv1aBytes` of the template in `key`. */
  private keyHash = 0;
  private d2 = 0;
  private d3 = 0;
  /** The ERE holds an escaped delimiter (its text is not the field's octets). */
  private ereEscapesDelimiter = false;
  /** FLAGS + SERVICES of the last record read (most records of a zone share them) and their verdict. */
  private readonly lastFlagsServices = new Uint8Array(64);
  private lastLength = -1;
  private lastVerdict = LOOK;

  /** CLEAN, MALFORMED or LOOK for the NAPTR RDATA `bytes[start, end)` (at least 8 octets). */
  check(bytes: Uint8Array, start: number, end: number): number {
    const at = this.at;
    if (naptrLayout(bytes, start, end, at) >= 0) return MALFORMED;
    const p = at[NAPTR_REPLACEMENT]!;
    const nlen = wireNameLength(bytes, p, end);
    if (nlen < 0 || p + nlen !== end) return MALFORMED;
    const f = at[NAPTR_FLAGS]!;
    const r = at[NAPTR_REGEXP]!;
    const fs = this.flagsServicesOf(bytes, f, r);
    if (fs === LOOK) return LOOK;
    const hasRegexp = bytes[r]! > 0;
    if (hasRegexp === (bytes[p]! !== 0)) return LOOK;
    if (!hasRegexp) return fs === FS_U ? LOOK : CLEAN;
    return this.regexpClean(bytes, r + 1, r + 1 + bytes[r]!, fs === FS_U) ? CLEAN : LOOK;
  }

  /** The verdict of FLAGS + SERVICES `bytes[f, r)`: the last record's again, or by the table. */
  private flagsServicesOf(bytes: Uint8Array, f: number, r: number): number {
    const last = this.lastFlagsServices;
    const n = r - f;
    if (n === this.lastLength) {
      let i = 0;
      while (i < n && last[i] === bytes[f + i]) i++;
      if (i === n) return this.lastVerdict;
    }
    const h = fnv1aBytes(bytes, f, r);
    let fs = this.flagsServices.get(bytes, f, r, h);
    if (fs === undefined) {
      fs = flagsServicesVerdict(bytes, f, r);
      this.flagsServices.set(bytes, f, r, h, fs);
    }
    if (n <= last.length) {
      for (let i = 0; i < n; i++) last[i] = bytes[f + i]!;
      this.lastLength = n;
      this.lastVerdict = fs;
    }
    return fs;
  }

  /** Record a REGEXP field read in full as valid and anchored (kept when it is ASCII). */
  validAnchoredText(field: string): void {
    const text = this.text;
    if (field.length > text.length) return;
    for (let i = 0; i < field.length; i++) {
      const c = field.charCodeAt(i);
      if (c >= 0x80) return;
      text[i] = c;
    }
    const n = this.templateOf(text, 0, field.length);
    if (n >= 0) this.templates.set(this.key, 0, n, this.keyHash, true);
  }

  private regexpClean(bytes: Uint8Array, start: number, end: number, uri: boolean): boolean {
    const n = this.templateOf(bytes, start, end);
    if (n < 0 || this.templates.get(this.key, 0, n, this.keyHash) === undefined) return false;
    // The jurisdiction warnings read the literals after "urn:lex:" (the template hides
    // them); without an escaped delimiter the ERE is the field's octets up to d2.
    if (this.ereEscapesDelimiter) return false;
    const j = bytes[start + 1] === 0x5e ? start + 2 : start + 1;
    if (urnLexAt(bytes, j, this.d2)) {
      const ere = String.fromCharCode.apply(
        null,
        bytes.subarray(start + 1, this.d2) as unknown as number[],
      );
      if (lintJurisdictionPattern(ere).length > 0) return false;
    }
    return !uri || this.schemeFirst(bytes, bytes[start]!);
  }

  /** Does the replacement (between d2 and d3) start with a URI scheme and its ":"? */
  private schemeFirst(bytes: Uint8Array, delim: number): boolean {
    let q = this.d2 + 1;
    const end = this.d3;
    if (q >= end) return false;
    const c0 = bytes[q]! | 0x20;
    if (c0 < 0x61 || c0 > 0x7a) return false;
    for (q++; q < end; q++) {
      const c = bytes[q]!;
      if (c === delim || c === 0x5c) return false;
      if (!(isAlnum(c) || c === 0x2b || c === 0x2e || c === 0x2d)) break;
    }
    return q < end && bytes[q] === 0x3a;
  }

  /** `substitutionTemplate` of an ASCII field into `key`: its length or -1; sets d2 and d3. */
  private templateOf(bytes: Uint8Array, start: number, end: number): number {
    const key = this.key;
    const delim = bytes[start]!;
    if (delim >= 0x80 || delim === RUN_OCTET) return -1;
    let k = 0;
    let h = FNV_OFFSET_BASIS;
    key[k++] = delim;
    h = Math.imul(h ^ delim, FNV_PRIME);
    let part = 0;
    let ereRuns = true;
    for (let i = start + 1; i < end;) {
      const c = bytes[i]!;
      if (c >= 0x80 || c === RUN_OCTET) return -1;
      if (c === 0x5c && i + 1 < end) {
        const next = bytes[i + 1]!;
        if (next >= 0x80 || next === RUN_OCTET) return -1;
        if (next === delim && part === 0) this.ereEscapesDelimiter = true;
        key[k++] = c;
        key[k++] = next;
        h = Math.imul(Math.imul(h ^ c, FNV_PRIME) ^ next, FNV_PRIME);
        i += 2;
        continue;
      }
      i++;
      if (c === delim) {
        part++;
        if (part === 1) this.d2 = i - 1;
        else if (part === 2) this.d3 = i - 1;
      } else if (part === 0 && (c === 0x5b || c === 0x7b)) {
        if (c === 0x7b) return -1;
        ereRuns = false;
      } else if (TEMPLATE_SAFE[c] === 1 && (part === 1 || (part === 0 && ereRuns))) {
        key[k++] = RUN_OCTET;
        h = Math.imul(h ^ RUN_OCTET, FNV_PRIME);
        while (i < end) {
          const d = bytes[i]!;
          if (d >= 0x80 || TEMPLATE_SAFE[d] !== 1 || d === delim) break;
          i++;
        }
        continue;
      }
      key[k++] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    this.keyHash = h;
    return part < 2 ? -1 : k;
  }
}
