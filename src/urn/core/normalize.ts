/**
 * Canonical form of a LEX URN, and LEX equivalence. On the LEX name:
 * - `urn`, NID and ASCII letters lowercased (RFC 8141 3.1, RFC 9676 3.3);
 * - percent-encoded non-ASCII decoded, lowercased per code point, re-encoded
 *   (RFC 9676 section 3.3 covers every cased language);
 * - `%hh` hex upper case (RFC 3986 6.2.2.1); a raw `|` separator as `%7C`;
 * - raw non-ASCII first percent-encoded (`encodeIri`), spans kept on the input.
 * Encoded ASCII (`%2C`) is never decoded (RFC 8141 section 3.1). The partition
 * id keeps its case (an element id, RFC 9676 5.8) but gets upper-case hex;
 * r-, q- and f-components are kept as written.
 */
import { lowerCodePoints, pctDecodeUtf8, pctEncodeNonAscii, pctOctet, upperHex } from './chars.ts';
import { encodeIri, rawOffset } from './iri.ts';
import { parseLexUrn } from './lex-parser.ts';
import { Normalized, UrnRejected } from './results.ts';
import type {
  LexParseResult,
  LexUrn,
  NormalizationChange,
  NormalizationRule,
  NormalizeResult,
  Span,
} from './types.ts';

const MESSAGES: Record<NormalizationRule, string> = {
  'scheme-lowercase': '"urn" written in lower case (RFC 8141 section 3.1)',
  'nid-lowercase': 'the namespace identifier written in lower case (RFC 8141 section 3.1)',
  'case-fold': 'letters written in lower case (RFC 9676 section 3.3)',
  'case-fold-encoded':
    'percent-encoded non-ASCII text decoded, lowercased and re-encoded (RFC 9676 section 3.3)',
  'percent-hex-uppercase':
    'percent-encoding hex digits written in upper case (RFC 3986 section 6.2.2.1)',
  'pipe-encoded': 'raw "|" date separator written as "%7C" (not an RFC 8141 character)',
  'iri-encoded':
    'raw non-ASCII text percent-encoded as UTF-8 (RFC 3987 section 3.1, RFC 9676 section 3)',
};

const NO_CHANGES: readonly NormalizationChange[] = Object.freeze([]);

export interface Canonical {
  readonly canonical: string;
  readonly changes: readonly NormalizationChange[];
  /** Length of the canonical assigned-name (the name and its `~partition`, without r/q/f). */
  readonly assignedEnd: number;
}

/** End of the LEX name (before `~`, `?`, `#`) in the parsed input. */
function nameEnd(urn: LexUrn): number {
  return urn.manifestation?.span.end ?? urn.expression?.span.end ?? urn.work.span.end;
}

/** Canonicalise a parsed tree (see the module comment for the rules). */
export function canonicalizeLexUrn(urn: LexUrn): Canonical {
  const t = urn.input;
  const end = nameEnd(urn);
  const docEnd = urn.partition ? urn.partition.span.end : end;
  // Fast path: nothing to fold (the common case for names written canonically).
  if (isCanonical(t, end, docEnd))
    return { canonical: t, changes: NO_CHANGES, assignedEnd: docEnd };
  const changes: NormalizationChange[] = [];
  const seen = new Set<NormalizationRule>();
  const note: Note = (rule, start, end) => {
    if (seen.has(rule)) return;
    seen.add(rule);
    changes.push({ rule, span: { start, end }, message: MESSAGES[rule] });
  };
  if (urn.scheme.text !== 'urn') note('scheme-lowercase', 0, 3);
  if (urn.nid.text !== 'lex') note('nid-lowercase', 4, 7);
  let out = 'urn:lex:' + foldName(t, end, note);
  let assignedEnd = out.length;
  let rest = end;
  if (urn.partition) {
    const p = urn.partition.span;
    out += '~' + upperPercentHex(t, p.start, p.end, note);
    assignedEnd = out.length;
    rest = p.end;
  }
  out += t.slice(rest);
  return { canonical: out, changes, assignedEnd };
}

type Note = (rule: NormalizationRule, start: number, end: number) => void;

/**
 * True when `t` starts `urn:lex:` in lowercase and holds no upper-case
 * letter in the name (before `end`), no `%` and no `|` before `docEnd`.
 */
function isCanonical(t: string, end: number, docEnd: number): boolean {
  if (
    t.charCodeAt(0) !== 0x75 ||
    t.charCodeAt(1) !== 0x72 ||
    t.charCodeAt(2) !== 0x6e ||
    t.charCodeAt(4) !== 0x6c ||
    t.charCodeAt(5) !== 0x65 ||
    t.charCodeAt(6) !== 0x78
  ) {
    return false;
  }
  for (let k = 8; k < docEnd; k++) {
    const c = t.charCodeAt(k);
    if ((c >= 0x41 && c <= 0x5a && k < end) || c === 0x25 || c === 0x7c) return false;
  }
  return true;
}

/** The LEX name after `urn:lex:` (offsets 8 to `end` of `t`), folded: a scanner. */
function foldName(t: string, end: number, note: Note): string {
  let out = '';
  let last = 8;
  let i = 8;
  while (i < end) {
    const c = t.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) {
      // Copy runs of unchanged text in one slice; lowercase runs of letters.
      let j = i + 1;
      while (j < end) {
        const d = t.charCodeAt(j);
        if (d === 0x25 || d === 0x7c) break;
        j++;
      }
      out += t.slice(last, i) + t.slice(i, j).toLowerCase();
      note('case-fold', i, i + 1);
      last = i = j;
    } else if (c === 0x25) {
      const b = pctOctet(t, i);
      if (b < 0x80) {
        const hex = upperHex(b);
        if (
          t.charCodeAt(i + 1) !== hex.charCodeAt(0) ||
          t.charCodeAt(i + 2) !== hex.charCodeAt(1)
        ) {
          out += t.slice(last, i) + '%' + hex;
          note('percent-hex-uppercase', i, i + 3);
          last = i + 3;
        }
        i += 3;
      } else {
        let j = i;
        while (j < end && t.charCodeAt(j) === 0x25 && pctOctet(t, j) >= 0x80) j += 3;
        const decoded = pctDecodeUtf8(t, i, j);
        const lowered = lowerCodePoints(decoded);
        const encoded = pctEncodeNonAscii(lowered);
        const original = t.slice(i, j);
        if (encoded !== original) {
          if (lowered !== decoded) note('case-fold-encoded', i, j);
          if (pctEncodeNonAscii(decoded) !== original) note('percent-hex-uppercase', i, j);
          out += t.slice(last, i) + encoded;
          last = j;
        }
        i = j;
      }
    } else if (c === 0x7c) {
      out += t.slice(last, i) + '%7C';
      note('pipe-encoded', i, i + 1);
      last = i = i + 1;
    } else {
      i++;
    }
  }
  return out + t.slice(last, end);
}

/** `t` from `start` to `end` (the partition) with its percent-encodings' hex in upper case. */
function upperPercentHex(t: string, start: number, end: number, note: Note): string {
  let part = '';
  let from = start;
  for (let k = t.indexOf('%', start); k >= 0 && k < end; k = t.indexOf('%', k + 3)) {
    const hex = upperHex(pctOctet(t, k));
    if (t.slice(k + 1, k + 3) !== hex) {
      part += t.slice(from, k) + '%' + hex;
      from = k + 3;
      note('percent-hex-uppercase', k, k + 3);
    }
  }
  return part + t.slice(from, end);
}

/** `parseLexUrn` of `encodeIri(text)`: a failure's span points into `text` as written. */
export function parseLexIri(text: string): { parsed: LexParseResult; iri: string; first: number } {
  const iri = encodeIri(text);
  const parsed = parseLexUrn(iri.text);
  if (parsed.ok || !iri.encoded) return { parsed, iri: iri.text, first: iri.first };
  const e = parsed.error;
  const span = rawSpan(text, e.span);
  return { parsed: new UrnRejected({ ...e, span }), iri: iri.text, first: iri.first };
}

function rawSpan(raw: string, s: Span): Span {
  const start = rawOffset(raw, s.start);
  return { start, end: Math.max(start + 1, rawOffset(raw, s.end - 1) + 1) };
}

/** Parse and canonicalise a LEX URN (raw non-ASCII accepted, see `parseLexIri`). Never throws. */
export function normalizeLexUrn(text: string): NormalizeResult {
  const { parsed: r, first } = parseLexIri(text);
  if (!r.ok) return r;
  const c = canonicalizeLexUrn(r.value);
  if (first < 0) return new Normalized(c.canonical, c.changes);
  const iriChange: NormalizationChange = {
    rule: 'iri-encoded',
    span: { start: first, end: first + 1 },
    message: MESSAGES['iri-encoded'],
  };
  const mapped = c.changes.map((ch) => ({ ...ch, span: rawSpan(text, ch.span) }));
  return new Normalized(c.canonical, [iriChange, ...mapped]);
}

/**
 * LEX equivalence (RFC 8141 section 3 plus RFC 9676 section 3.3): equal
 * canonical assigned-names, `~partition` included. Invalid input matches nothing.
 */
export function lexUrnEquivalent(a: string, b: string): boolean {
  const pa = parseLexIri(a).parsed;
  if (!pa.ok) return false;
  const pb = parseLexIri(b).parsed;
  if (!pb.ok) return false;
  const ca = canonicalizeLexUrn(pa.value);
  const cb = canonicalizeLexUrn(pb.value);
  return ca.canonical.slice(0, ca.assignedEnd) === cb.canonical.slice(0, cb.assignedEnd);
}
