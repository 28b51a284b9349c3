/**
 * The RFC 8141 layer: `urn:` NID `:` NSS, r-component (`?+`), q-component
 * (`?=`), f-component (`#`), and URN-equivalence.
 *
 * @see RFC 8141 section 2
 *   namestring    = assigned-name [ rq-components ] [ "#" f-component ]
 *   assigned-name = "urn" ":" NID ":" NSS
 *   NID           = (alphanum) 0*30(ldh) (alphanum)
 *   NSS           = pchar *(pchar / "/")
 *   rq-components = [ "?+" r-component ] [ "?=" q-component ]
 */
import {
  C_ALPHA,
  C_DIGIT,
  C_PCHAR,
  CLASS,
  describeChar,
  pctOctet,
  scanPctUtf8,
  upperHex,
} from './chars.ts';
import { fail, UrnFailure } from './fail.ts';
import { UrnRejected } from './results.ts';
import type { Segment, Urn8141, Urn8141Result } from './types.ts';

/** Allow `/` in a scanned run. */
const ALLOW_SLASH = 1;
/** Allow `?` in a scanned run (r-, q- and f-components). */
const ALLOW_QUESTION = 2;
/** Allow a raw `|` (LEX date-loc separator, accepted leniently by the LEX parser). */
const ALLOW_PIPE = 4;

/**
 * Check `urn:` and the NID. Returns the index of the `:` that ends the NID.
 * @see RFC 8141 section 2.1: "NID = (alphanum) 0*30(ldh) (alphanum)"
 */
export function scanHead(text: string): number {
  const n = text.length;
  if (n === 0) fail('URN_EMPTY', 'the input is empty', 0, 0);
  if (
    n < 4 ||
    (text.charCodeAt(0) | 0x20) !== 0x75 ||
    (text.charCodeAt(1) | 0x20) !== 0x72 ||
    (text.charCodeAt(2) | 0x20) !== 0x6e ||
    text.charCodeAt(3) !== 0x3a
  ) {
    const colon = text.indexOf(':');
    const end = colon < 0 ? Math.min(n, 4) : Math.min(colon + 1, 16);
    fail('URN_BAD_SCHEME', `expected "urn:" at the start, found "${text.slice(0, end)}"`, 0, end);
  }
  let i = 4;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) break;
    if (c >= 128 || (c !== 0x2d && (CLASS[c]! & (C_ALPHA | C_DIGIT)) === 0)) {
      fail(
        'URN_BAD_NID',
        `${describeChar(text, i)} is not allowed in a namespace identifier (letters, digits, "-")`,
        i,
        i + 1,
      );
    }
    i++;
  }
  const len = i - 4;
  if (len < 2 || len > 32) {
    fail(
      'URN_BAD_NID',
      len === 0
        ? 'the namespace identifier is empty'
        : `the namespace identifier has ${len} characters (2 to 32 allowed)`,
      4,
      i,
    );
  }
  if (text.charCodeAt(4) === 0x2d || text.charCodeAt(i - 1) === 0x2d) {
    fail('URN_BAD_NID', 'the namespace identifier must not start or end with "-"', 4, i);
  }
  if (i >= n) {
    fail(
      'URN_EMPTY_NSS',
      `no ":" and NSS after the namespace identifier "${text.slice(4, i)}"`,
      i,
      i,
    );
  }
  return i;
}

/**
 * Scan a run of pchar (plus `/` and `?` when allowed) from `i`; returns the
 * index of the first character that is not part of the run. Bad percent
 * triplets and invalid UTF-8 fail here; any other stop is left to the caller.
 */
export function scanRun(text: string, i: number, allow: number): number {
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128 && (CLASS[c]! & C_PCHAR) !== 0) {
      i++;
    } else if (c === 0x25) {
      i = scanPercent(text, i);
    } else if (
      (c === 0x2f && allow & ALLOW_SLASH) ||
      (c === 0x3f && allow & ALLOW_QUESTION) ||
      (c === 0x7c && allow & ALLOW_PIPE)
    ) {
      i++;
    } else {
      break;
    }
  }
  return i;
}

/** Check the `%hh` (and the whole UTF-8 sequence for octets >= 0x80) at `i`; returns the index after it. */
export function scanPercent(text: string, i: number): number {
  const b = pctOctet(text, i);
  if (b < 0) {
    fail(
      'URN_BAD_PERCENT',
      `"%" must be followed by two hexadecimal digits, found "${text.slice(i, i + 3)}"`,
      i,
      Math.min(text.length, i + 3),
    );
  }
  if (b < 0x80) return i + 3;
  const end = scanPctUtf8(text, i);
  if (end < 0) {
    const at = -end - 1;
    fail(
      'URN_BAD_UTF8',
      `percent-encoded octets are not valid UTF-8 at "${text.slice(at, at + 3)}"`,
      at,
      Math.min(text.length, at + 3),
    );
  }
  return end;
}

/** Fail on the character at `i`, which cannot appear at this point of a URN. */
export function failBadChar(text: string, i: number, where: string): never {
  const c = text.charCodeAt(i);
  if (c === 0x3f) {
    fail(
      'URN_BAD_QUERY_MARK',
      '"?" must be followed by "+" (r-component) or "=" (q-component)',
      i,
      i + 1,
    );
  }
  if (c === 0x23)
    fail('URN_BAD_CHAR', 'a second "#": the f-component cannot contain "#"', i, i + 1);
  const width = c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  const hint = c >= 128 ? ' (non-ASCII text must be percent-encoded UTF-8)' : '';
  fail('URN_BAD_CHAR', `${describeChar(text, i)} is not allowed in ${where}${hint}`, i, i + width);
}

export interface UrnTail {
  readonly rComponent?: Segment;
  readonly qComponent?: Segment;
  readonly fComponent?: Segment;
}

function seg(text: string, start: number, end: number): Segment {
  return { text: text.slice(start, end), span: { start, end } };
}

/**
 * Parse the optional components from `i` (at `?`, `#` or the end): a `?` not
 * followed by `+` or `=` is an error (RFC 8141 section 2); `?+` after `?=` is q.
 */
export function scanTail(text: string, i: number): UrnTail {
  const n = text.length;
  let r: Segment | undefined;
  let q: Segment | undefined;
  let f: Segment | undefined;
  if (i < n && text.charCodeAt(i) === 0x3f && text.charCodeAt(i + 1) === 0x2b) {
    const start = i + 2;
    let j = start;
    for (;;) {
      j = scanRun(text, j, ALLOW_SLASH);
      // a "?" inside the r-component is allowed unless it starts "?="
      if (j < n && text.charCodeAt(j) === 0x3f && text.charCodeAt(j + 1) !== 0x3d) {
        j++;
        continue;
      }
      break;
    }
    checkComponentStart(text, start, j, 'r-component ("?+")');
    r = seg(text, start, j);
    i = j;
  }
  if (i < n && text.charCodeAt(i) === 0x3f && text.charCodeAt(i + 1) === 0x3d) {
    const start = i + 2;
    const j = scanRun(text, start, ALLOW_SLASH | ALLOW_QUESTION);
    checkComponentStart(text, start, j, 'q-component ("?=")');
    q = seg(text, start, j);
    i = j;
  }
  if (i < n && text.charCodeAt(i) === 0x23) {
    const start = i + 1;
    const j = scanRun(text, start, ALLOW_SLASH | ALLOW_QUESTION);
    f = seg(text, start, j);
    i = j;
  }
  if (i < n) failBadChar(text, i, f ? 'the f-component' : q ? 'the q-component' : 'a URN');
  return { rComponent: r, qComponent: q, fComponent: f };
}

function checkComponentStart(text: string, start: number, end: number, what: string): void {
  if (end === start) {
    fail('URN_EMPTY_COMPONENT', `the ${what} is empty`, start - 2, start);
  }
  const c = text.charCodeAt(start);
  if (c === 0x2f || c === 0x3f) {
    fail(
      'URN_BAD_CHAR',
      `the ${what} must not start with "${String.fromCharCode(c)}"`,
      start,
      start + 1,
    );
  }
}

/** Parse a URN at the RFC 8141 level (any NID). */
export function parseUrn8141(text: string): Urn8141Result {
  return parse8141(text, 0);
}

/** The RFC 8141 check run when the LEX grammar rejects an input (a raw `|` let through). */
export function parseUrn8141AllowingPipe(text: string): Urn8141Result {
  return parse8141(text, ALLOW_PIPE);
}

function parse8141(text: string, extra: number): Urn8141Result {
  try {
    const nidEnd = scanHead(text);
    const nssStart = nidEnd + 1;
    const n = text.length;
    if (nssStart >= n || text.charCodeAt(nssStart) === 0x3f || text.charCodeAt(nssStart) === 0x23) {
      fail('URN_EMPTY_NSS', 'the namespace specific string is empty', nssStart, nssStart);
    }
    if (text.charCodeAt(nssStart) === 0x2f) {
      fail(
        'URN_BAD_NSS_START',
        'the namespace specific string must not start with "/"',
        nssStart,
        nssStart + 1,
      );
    }
    const nssEnd = scanRun(text, nssStart, ALLOW_SLASH | extra);
    if (nssEnd < n && text.charCodeAt(nssEnd) !== 0x3f && text.charCodeAt(nssEnd) !== 0x23) {
      failBadChar(text, nssEnd, 'a namespace specific string');
    }
    const tail = scanTail(text, nssEnd);
    const urn: Urn8141 = {
      scheme: seg(text, 0, 3),
      nid: seg(text, 4, nidEnd),
      nss: seg(text, nssStart, nssEnd),
      ...(tail.rComponent && { rComponent: tail.rComponent }),
      ...(tail.qComponent && { qComponent: tail.qComponent }),
      ...(tail.fComponent && { fComponent: tail.fComponent }),
      span: { start: 0, end: n },
      assignedName: seg(text, 0, nssEnd),
    };
    return { ok: true, value: urn };
  } catch (e) {
    if (e instanceof UrnFailure) return new UrnRejected(e.diagnostic);
    throw e;
  }
}

/**
 * The RFC 8141 section 3.1 comparison form of an assigned-name: `urn` and the
 * NID lowercased, `%hh` hex digits uppercased; nothing decoded.
 */
export function urn8141Key(urn: Urn8141): string {
  const nss = urn.nss.text;
  let out = 'urn:' + urn.nid.text.toLowerCase() + ':';
  let last = 0;
  for (let i = nss.indexOf('%'); i >= 0; i = nss.indexOf('%', i + 3)) {
    out += nss.slice(last, i) + '%' + upperHex(pctOctet(nss, i));
    last = i + 3;
  }
  return out + nss.slice(last);
}

/** URN-equivalence (RFC 8141 section 3.1: `urn8141Key`s equal). Invalid input matches nothing. */
export function urn8141Equivalent(a: string, b: string): boolean {
  const pa = parseUrn8141(a);
  const pb = parseUrn8141(b);
  if (!pa.ok || !pb.ok) return false;
  return urn8141Key(pa.value) === urn8141Key(pb.value);
}
