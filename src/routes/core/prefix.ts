/**
 * LEX URN prefixes as routing tables write them: jurisdiction, optionally
 * authority and measure (`br;sao.paulo`, `br:federal:lei`), held as the AUS
 * has them (RFC 9676 section 3.3). A rule matches when the next character
 * ends the part (`;`, `:`, and `+` after the authority, RFC 9676 section
 * 5.3): `br;sao.paulo` takes `br;sao.paulo;campinas`, not `br;sao.paulo2`.
 */
import { normalizeLexUrn } from '../../urn/core/index.ts';
import type { RouteCode } from './codes.ts';
import { err, ok, type Failure, type Result } from '../../kit/core/result.ts';

export type PrefixLevel = 'jurisdiction' | 'authority' | 'measure';

export interface LexPrefix {
  /** Canonical text without `urn:lex:` (`br;sao.paulo`, `de;stadt.m%C3%BCnchen`). */
  readonly text: string;
  readonly level: PrefixLevel;
  /** Jurisdiction code and units, canonical. */
  readonly jurisdiction: readonly string[];
  readonly authority?: string;
  readonly measure?: string;
}

/** Why a prefix is refused, and where. */
export interface PrefixError extends Failure<RouteCode> {
  /** Offset in the text as given. */
  readonly offset: number;
}

export type PrefixResult = Result<LexPrefix, PrefixError>;

/** The characters that may follow a prefix of each level (a bracket expression body). */
export const BOUNDARY: Readonly<Record<PrefixLevel, string>> = {
  jurisdiction: ';:',
  authority: ';:+',
  measure: ';:',
};

const HEAD = 'urn:lex:';

/** Percent-encode non-ASCII as UTF-8 (uppercase hex), uppercase `%hh`, lowercase the rest. */
export function canonicalPart(text: string): string {
  let out = '';
  const enc = new TextEncoder();
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    const cp = text.codePointAt(i)!;
    if (cp >= 0x80) {
      const s = String.fromCodePoint(cp);
      for (const b of enc.encode(s.toLowerCase())) {
        out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
      }
      if (cp > 0xffff) i++;
    } else if (ch === '%' && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      out += `%${text.slice(i + 1, i + 3).toUpperCase()}`;
      i += 2;
    } else out += ch.toLowerCase();
  }
  return out;
}

/** Example tail completing a prefix into a whole LEX name: authority, measure, details. */
export function exampleUrn(p: LexPrefix): string {
  const j = p.jurisdiction.join(';');
  return `${HEAD}${j}:${p.authority ?? 'authority'}:${p.measure ?? 'act'}:2000-01-01;1`;
}

/** Read a prefix: ROUTE_PREFIX_EMPTY, ROUTE_PREFIX_PART or ROUTE_PREFIX_SYNTAX (the URN library's). */
export function parsePrefix(input: string): PrefixResult {
  let text = input;
  let base = 0;
  if (text.slice(0, HEAD.length).toLowerCase() === HEAD) {
    text = text.slice(HEAD.length);
    base = HEAD.length;
  }
  const bad = (code: RouteCode, message: string, offset: number) => err({ code, message, offset });
  if (text === '') return bad('ROUTE_PREFIX_EMPTY', 'the prefix is empty', 0);
  const parts = text.split(':');
  if (parts.length > 3 || parts.some((p) => p === ''))
    return bad(
      'ROUTE_PREFIX_PART',
      'a prefix is <jurisdiction>[:<authority>[:<measure>]] with no empty part (e.g. br;sao.paulo or br:federal:lei)',
      base,
    );
  const units = parts[0]!.split(';');
  if (units.some((u) => u === ''))
    return bad(
      'ROUTE_PREFIX_PART',
      'the jurisdiction has an empty unit (write code;unit;unit)',
      base,
    );
  const jurisdiction = units.map(canonicalPart);
  const authority = parts[1] !== undefined ? canonicalPart(parts[1]) : undefined;
  const measure = parts[2] !== undefined ? canonicalPart(parts[2]) : undefined;
  const level: PrefixLevel =
    measure !== undefined ? 'measure' : authority !== undefined ? 'authority' : 'jurisdiction';
  const value: LexPrefix = {
    text: [jurisdiction.join(';'), authority, measure].filter((x) => x !== undefined).join(':'),
    level,
    jurisdiction,
    ...(authority !== undefined ? { authority } : {}),
    ...(measure !== undefined ? { measure } : {}),
  };
  // The prefix must make a LEX name once completed: check it with the URN library.
  const example = exampleUrn(value);
  const n = normalizeLexUrn(example);
  if (!n.ok) {
    const e = n.error;
    const at = Math.max(0, e.span.start - HEAD.length);
    const message = `not a LEX prefix: ${e.code} ${e.message}`;
    return bad('ROUTE_PREFIX_SYNTAX', message, base + Math.min(at, text.length));
  }
  if (!n.canonical.startsWith(`${HEAD}${value.text}`))
    return bad(
      'ROUTE_PREFIX_SYNTAX',
      `not a LEX prefix in canonical form (the URN reads ${n.canonical})`,
      base,
    );
  return ok(value);
}

/** `urn:lex:<text>` */
export function prefixUrn(p: { readonly text: string }): string {
  return `${HEAD}${p.text}`;
}

/**
 * The URNs a rule takes: `literal` then one of `boundary` (anything when
 * undefined; everything when both are empty). Literals in lower case.
 */
export interface MatchSet {
  readonly literal: string;
  /** Characters allowed right after the literal; undefined: any (or the end). */
  readonly boundary: string | undefined;
}

/** Does every URN `b` matches also match `a`? */
export function covers(a: MatchSet, b: MatchSet): boolean {
  const al = a.literal.toLowerCase();
  const bl = b.literal.toLowerCase();
  if (!bl.startsWith(al)) return false;
  if (a.boundary === undefined) return true;
  if (bl.length > al.length) return a.boundary.includes(bl[al.length]!);
  if (b.boundary === undefined) return false;
  for (const c of b.boundary) if (!a.boundary.includes(c)) return false;
  return true;
}

/** Can some URN match both? (Prefix sets either nest or are disjoint, up to the boundary.) */
export function overlaps(a: MatchSet, b: MatchSet): boolean {
  if (covers(a, b) || covers(b, a)) return true;
  const al = a.literal.toLowerCase();
  const bl = b.literal.toLowerCase();
  if (al !== bl || a.boundary === undefined || b.boundary === undefined) return false;
  for (const c of a.boundary) if (b.boundary.includes(c)) return true;
  return false;
}

/** The match set of a prefix rule. */
export function prefixMatchSet(p: LexPrefix): MatchSet {
  return { literal: prefixUrn(p), boundary: BOUNDARY[p.level] };
}
