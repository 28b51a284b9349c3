/** Content negotiation (pure): `Accept` and `Accept-Language` (RFC 9110 sections 12.5.1, 12.5.4). */

export interface Preference {
  /** Lowercased media range (`application/pdf`, `text/*`, `*\/*`) or language range (`pt-br`, `*`). */
  readonly value: string;
  /** Weight in [0, 1]. */
  readonly q: number;
  /** Position in the header, for stable ordering of equal weights. */
  readonly index: number;
}

const MAX_ENTRIES = 64;

/**
 * Parse a comma-separated list with `;q=` weights. Malformed entries are
 * skipped (a bad header never fails a request); at most 64 entries are read.
 * Entries are returned best first (q descending, then header order); q=0
 * entries are kept so callers can honour an explicit refusal.
 */
export function parsePreferences(header: string | null | undefined): Preference[] {
  if (!header) return [];
  const out: Preference[] = [];
  const parts = header.split(',');
  for (let i = 0; i < parts.length && out.length < MAX_ENTRIES; i++) {
    const part = parts[i] ?? '';
    const [rawValue, ...params] = part.split(';');
    const value = (rawValue ?? '').trim().toLowerCase();
    if (value === '' || /\s/.test(value)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (m) {
        const n = Number(m[1]);
        q = Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 1;
      }
    }
    out.push({ value, q, index: i });
  }
  return out.sort((a, b) => b.q - a.q || a.index - b.index);
}

/** The weight a parsed Accept header gives a concrete media type (0 when refused or not listed). */
export function mediaTypeWeight(prefs: readonly Preference[], type: string): number {
  if (prefs.length === 0) return 1;
  const t = type.toLowerCase();
  const slash = t.indexOf('/');
  const major = t.slice(0, slash);
  let best = -1;
  let bestSpecificity = -1;
  for (const p of prefs) {
    let specificity = -1;
    if (p.value === t) specificity = 2;
    else if (p.value === `${major}/*`) specificity = 1;
    else if (p.value === '*/*') specificity = 0;
    if (specificity > bestSpecificity) {
      bestSpecificity = specificity;
      best = p.q;
    }
  }
  return best < 0 ? 0 : best;
}

/**
 * Pick the representation to send among `offered` (media types, server
 * preference first). Returns null only when every offer is refused with
 * q=0 or not listed and the header names no wildcard.
 */
export function chooseMediaType(
  header: string | null | undefined,
  offered: readonly string[],
): string | null {
  const prefs = parsePreferences(header);
  let best: string | null = null;
  let bestQ = 0;
  for (const o of offered) {
    const q = mediaTypeWeight(prefs, o);
    if (q > bestQ) {
      best = o;
      bestQ = q;
    }
  }
  return best;
}

/**
 * The weight of a language tag under Accept-Language "basic filtering"
 * (RFC 4647 section 3.3.1): a range matches a tag equal to it or starting
 * with it followed by `-`; `*` matches anything. Returns 0 when nothing
 * matches, and `whenEmpty` when the header is absent.
 */
export function languageWeight(prefs: readonly Preference[], tag: string, whenEmpty = 1): number {
  if (prefs.length === 0) return whenEmpty;
  const t = tag.toLowerCase();
  let best = -1;
  let bestLength = -1;
  for (const p of prefs) {
    const matches = p.value === '*' || t === p.value || t.startsWith(`${p.value}-`);
    const length = p.value === '*' ? 0 : p.value.length;
    if (matches && length > bestLength) {
      best = p.q;
      bestLength = length;
    }
  }
  return best < 0 ? 0 : best;
}

/** LEX formats write a MIME type with `-` for `/` (RFC 9676 section 5.7): `application-pdf`. */
export function lexFormatToMediaType(format: string): string | null {
  const mime = format.split(';')[0] ?? '';
  const dash = mime.indexOf('-');
  if (dash <= 0 || dash === mime.length - 1) return null;
  return `${mime.slice(0, dash)}/${mime.slice(dash + 1)}`;
}
