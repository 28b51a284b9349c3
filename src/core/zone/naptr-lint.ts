/**
 * NAPTR lint: checks of every NAPTR record of a zone against RFC 3402-3404
 * and the project's decisions, plus the `; expect` directives that pin what
 * a zone's rules do with a given URN.
 *
 * The substitution-expression parser, the flag and service readers and the
 * DDDS step are the client's own (`src/core/ddds/`), so the linter accepts
 * exactly what the client will run.
 */
import { parseFlags, parseServices } from '../ddds/naptr.ts';
import { dddsStep, type NaptrRecord } from '../ddds/step.ts';
import { parseSubstitution, type SubstExpr } from '../ddds/subst.ts';
import { toDnsKey } from '../urn/dns-key.ts';
import type { ResourceRecord, SourcePosition, ZoneDiagnostic } from './model.ts';
import { nameToText, wireNameLength } from './names.ts';
import type { ExpectDirective } from './parser.ts';
import { TYPE_NAPTR } from './types.ts';

/** NAPTR RDATA as strings (wire values: single backslashes), or undefined when malformed. */
export function naptrFields(rdata: Uint8Array): NaptrRecord | undefined {
  if (rdata.length < 8) return undefined;
  const order = (rdata[0]! << 8) | rdata[1]!;
  const preference = (rdata[2]! << 8) | rdata[3]!;
  let p = 4;
  const strings: string[] = [];
  for (let k = 0; k < 3; k++) {
    if (p >= rdata.length) return undefined;
    const len = rdata[p]!;
    if (p + 1 + len > rdata.length) return undefined;
    const s = utf8(rdata, p + 1, p + 1 + len);
    if (s === undefined) return undefined;
    strings.push(s);
    p += 1 + len;
  }
  const nlen = wireNameLength(rdata, p);
  if (nlen < 0 || p + nlen !== rdata.length) return undefined;
  return {
    order,
    preference,
    flags: strings[0]!,
    services: strings[1]!,
    regexp: strings[2]!,
    replacement: nameToText(rdata, p, true),
  };
}

/** Strict UTF-8 decoding (RFC 3629); undefined when the octets are not UTF-8. */
function utf8(b: Uint8Array, start: number, end: number): string | undefined {
  let s = '';
  for (let i = start; i < end;) {
    const c = b[i]!;
    let cp: number;
    let n: number;
    if (c < 0x80) {
      cp = c;
      n = 1;
    } else if (c >= 0xc2 && c < 0xe0) {
      cp = c & 0x1f;
      n = 2;
    } else if (c >= 0xe0 && c < 0xf0) {
      cp = c & 0x0f;
      n = 3;
    } else if (c >= 0xf0 && c < 0xf5) {
      cp = c & 0x07;
      n = 4;
    } else return undefined;
    if (i + n > end) return undefined;
    for (let k = 1; k < n; k++) {
      const d = b[i + k]!;
      if ((d & 0xc0) !== 0x80) return undefined;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (
      (n === 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
      (n === 4 && (cp < 0x10000 || cp > 0x10ffff))
    )
      return undefined;
    s += String.fromCodePoint(cp);
    i += n;
  }
  return s;
}

function diag(
  code: string,
  severity: 'error' | 'warning',
  message: string,
  rr: { source?: SourcePosition | undefined },
  token?: string,
): ZoneDiagnostic {
  return {
    code,
    severity,
    message,
    ...(rr.source ? { position: rr.source } : {}),
    ...(token !== undefined ? { token } : {}),
  };
}

/**
 * Warnings on the jurisdiction part of a LEX pattern (`^urn:lex:<code>...`):
 * - NAPTR_JURISDICTION_UNBOUNDED: the code is not followed by `[;:]` (or `;`,
 *   `:`, `$`), so `br` would also match `brx` (digest section 13 notes);
 * - NAPTR_UNESCAPED_DOT: a `.` in the code is the ERE "any character"
 *   (`un.org` also matches `unxorg`); write `\.`.
 */
export function lintJurisdictionPattern(ere: string): { code: string; message: string }[] {
  const out: { code: string; message: string }[] = [];
  const m = /^\^?urn:lex:/i.exec(ere);
  if (!m) return out;
  let i = m[0].length;
  const n = ere.length;
  const atom = (): boolean => {
    const c = ere[i];
    if (c === undefined) return false;
    if (/[A-Za-z0-9_-]/.test(c)) {
      i++;
      return true;
    }
    if (c === '\\' && i + 1 < n) {
      i += 2;
      return true;
    }
    if (c === '.' && i + 1 < n && /[A-Za-z0-9]/.test(ere[i + 1]!)) {
      out.push({
        code: 'NAPTR_UNESCAPED_DOT',
        message: `unescaped '.' in the jurisdiction code of ${JSON.stringify(ere)} matches any character; write \\. (digest section 13)`,
      });
      i++;
      return true;
    }
    if (c === '[' || c === '(') {
      // A bracket expression or group: skip to its end (brackets keep POSIX meaning).
      const close = c === '[' ? ']' : ')';
      let depth = 0;
      let j = i;
      for (; j < n; j++) {
        const d = ere[j];
        if (c === '[' && j > i + 1 && d === ']' && !(j === i + 2 && ere[i + 1] === '^')) break;
        if (c === '(') {
          if (d === '\\') {
            j++;
            continue;
          }
          if (d === '(') depth++;
          if (d === ')' && --depth === 0) break;
        }
      }
      if (j >= n) return false;
      const body = ere.slice(i, j + 1);
      // `[;:]` itself is the boundary, not part of the code.
      if (c === '[' && /^\[[;:]+\]$/.test(body)) return false;
      i = j + 1;
      if (ere[i] === '+' || ere[i] === '*' || ere[i] === '?') i++;
      void close;
      return true;
    }
    return false;
  };
  for (;;) {
    const start = i;
    while (i < n && atom()) {
      /* consume the code or unit */
    }
    if (i === start) break;
    if (ere[i] === ';' && i + 1 < n && ere[i + 1] !== ']') {
      i++;
      continue;
    }
    break;
  }
  const rest = ere.slice(i);
  if (!/^(\[[;:]{1,2}\]|[;:]|\$|\)|$)/.test(rest)) {
    out.push({
      code: 'NAPTR_JURISDICTION_UNBOUNDED',
      message: `the jurisdiction in ${JSON.stringify(ere)} is not followed by [;:], so a longer code also matches (br matches brx); add [;:] (digest section 13)`,
    });
  }
  return out;
}

/** The literal text before the first back-reference of a replacement. */
function staticPrefix(expr: SubstExpr): { text: string; complete: boolean } {
  let text = '';
  for (const part of expr.repl) {
    if (part.kind === 'backref') return { text, complete: false };
    text += part.text;
  }
  return { text, complete: true };
}

/** Distinct REGEXP fields kept compiled during one lint run (oldest dropped first). */
const LINT_CACHE_SIZE = 2048;

/** Lint every NAPTR record; records of other types are ignored. */
export function lintNaptrRecords(records: readonly ResourceRecord[]): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  // REGEXP fields repeat across a zone: parse (and compile) each one once.
  // Bounded: a compiled expression is large, and a big zone has hundreds of
  // thousands of distinct ones (per-jurisdiction rules), which a cache of all
  // of them would hold at once (gigabytes). Repeats are mostly close together
  // or among a few shared rules, which a bounded cache keeps.
  const cache = new Map<string, ReturnType<typeof parseSubstitution>>();
  const parse = (field: string) => {
    let r = cache.get(field);
    if (r === undefined) {
      if (cache.size >= LINT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(field, (r = parseSubstitution(field)));
    }
    return r;
  };
  const byOwner = new Map<string, { rr: ResourceRecord; f: NaptrRecord }[]>();
  for (const rr of records) {
    if (rr.type !== TYPE_NAPTR) continue;
    const f = naptrFields(rr.rdata);
    if (!f) {
      out.push(
        diag(
          'NAPTR_MALFORMED',
          'error',
          'NAPTR RDATA is malformed or not UTF-8 (RFC 3403 section 4.1)',
          rr,
        ),
      );
      continue;
    }
    let list = byOwner.get(rr.owner);
    if (!list) byOwner.set(rr.owner, (list = []));
    list.push({ rr, f });
    lintOne(rr, f, out, parse);
  }
  // ORDER, not PREFERENCE, makes "more specific first" deterministic.
  for (const list of byOwner.values()) {
    if (list.length < 2) continue;
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i]!.f;
        const b = list[j]!.f;
        if (a.order !== b.order || a.preference === b.preference) continue;
        if (a.flags.toLowerCase() !== b.flags.toLowerCase()) continue;
        if (a.services.toLowerCase() !== b.services.toLowerCase()) continue;
        if (a.regexp === b.regexp && a.replacement === b.replacement) continue;
        const later = a.preference > b.preference ? list[i]! : list[j]!;
        out.push(
          diag(
            'NAPTR_PREFERENCE_AS_ORDER',
            'warning',
            `records with ORDER ${a.order}, the same flags and services but different rules are told apart only by PREFERENCE (${a.preference}, ${b.preference}); a client MAY pick either (RFC 3403 section 4.1): use different ORDER values for "more specific first"`,
            later.rr,
            String(later.f.preference),
          ),
        );
      }
    }
  }
  return out;
}

function lintOne(
  rr: ResourceRecord,
  f: NaptrRecord,
  out: ZoneDiagnostic[],
  parseSubst: (field: string) => ReturnType<typeof parseSubstitution>,
): void {
  const hasRegexp = f.regexp !== '';
  const hasReplacement = f.replacement !== '.';
  // RFC 3403 section 4.1: "The Regexp and Replacement fields are mutually exclusive."
  if (hasRegexp && hasReplacement)
    out.push(
      diag(
        'NAPTR_BOTH_FIELDS',
        'error',
        `REGEXP and REPLACEMENT (${f.replacement}) are both set; they are mutually exclusive and clients ignore the record (RFC 3403 section 4.1)`,
        rr,
        f.replacement,
      ),
    );
  if (!hasRegexp && !hasReplacement)
    out.push(
      diag(
        'NAPTR_NO_REWRITE',
        'error',
        'REGEXP is empty and REPLACEMENT is ".": the record produces nothing (digest 15.15)',
        rr,
      ),
    );
  const flags = parseFlags(f.flags);
  if (flags.kind === 'unusable') out.push(diag(flags.code, 'error', flags.message, rr, f.flags));
  const services = parseServices(f.services);
  if (!services.ok) out.push(diag(services.code, 'error', services.message, rr, f.services));
  const flag = flags.kind === 'flag' ? flags.flag : undefined;
  if ((flag === 'S' || flag === 'A') && services.ok && services.value.protocol === undefined)
    out.push(
      diag(
        'NAPTR_TERMINAL_NO_PROTOCOL',
        'warning',
        `a terminal "${flag}" record names no protocol in SERVICES; clients skip it (RFC 2915 section 2, digest 15.21)`,
        rr,
        f.services,
      ),
    );
  let expr: SubstExpr | undefined;
  if (hasRegexp) {
    const parsed = parseSubst(f.regexp);
    if (!parsed.ok) {
      out.push(
        diag(
          `NAPTR_${parsed.error.code}`,
          'error',
          `REGEXP ${JSON.stringify(f.regexp)}: ${parsed.error.message}`,
          rr,
          f.regexp,
        ),
      );
    } else {
      expr = parsed.expr;
      const ere = expr.ere.source;
      if (!ere.startsWith('^'))
        out.push(
          diag(
            'NAPTR_UNANCHORED',
            'warning',
            `the pattern ${JSON.stringify(ere)} is not anchored with ^: sed-style and whole-string readings differ (decisions.md item 1); anchor it ^...$`,
            rr,
            f.regexp,
          ),
        );
      for (const w of lintJurisdictionPattern(ere))
        out.push(diag(w.code, 'warning', w.message, rr, f.regexp));
    }
  }
  if (flag === 'U') {
    if (!hasRegexp)
      out.push(
        diag(
          'NAPTR_U_WITHOUT_REGEXP',
          'error',
          'a "U" record outputs a URI from its REGEXP (RFC 2915 section 2); a REPLACEMENT alone gives no URI',
          rr,
        ),
      );
    else if (expr) {
      const prefix = staticPrefix(expr);
      const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.test(prefix.text);
      if (!scheme && (prefix.complete || prefix.text !== ''))
        out.push(
          diag(
            'NAPTR_U_NOT_URI',
            'error',
            `a "U" record must output an absolute URI (RFC 3404 section 4.3); the replacement starts ${JSON.stringify(prefix.text)}, which has no scheme`,
            rr,
            f.regexp,
          ),
        );
    }
  }
}

/**
 * Parse `<urn> -> <result>`: result is a domain name (the next key), `U <uri>`,
 * `S <name>`, `A <name>`, `P <text>` or `fail`.
 */
export function parseExpect(
  text: string,
): { urn: string; kind: 'next' | 'U' | 'S' | 'A' | 'P' | 'fail'; value: string } | undefined {
  const m = /^(\S+)\s*->\s*(.+)$/.exec(text.trim());
  if (!m) return undefined;
  const urn = m[1]!;
  const result = m[2]!.trim();
  if (/^fail$/i.test(result)) return { urn, kind: 'fail', value: '' };
  const t = /^([USAP])\s+(\S+)$/i.exec(result);
  if (t) return { urn, kind: t[1]!.toUpperCase() as 'U' | 'S' | 'A' | 'P', value: t[2]! };
  if (/^\S+$/.test(result)) return { urn, kind: 'next', value: result };
  return undefined;
}

function absolute(name: string): string {
  const n = name.toLowerCase();
  return n.endsWith('.') ? n : `${n}.`;
}

/**
 * Verify `; expect` directives: the NAPTR RRset of the directive's owner,
 * applied by the client's DDDS step to the URN, must give the stated result.
 */
export function checkExpectations(
  expects: readonly ExpectDirective[],
  records: readonly ResourceRecord[],
): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  const sets = new Map<string, NaptrRecord[]>();
  for (const rr of records) {
    if (rr.type !== TYPE_NAPTR) continue;
    const f = naptrFields(rr.rdata);
    if (!f) continue;
    let list = sets.get(rr.owner);
    if (!list) sets.set(rr.owner, (list = []));
    list.push({ ...f, ttl: rr.ttl });
  }
  for (const e of expects) {
    const where = { source: e.position };
    const parsed = parseExpect(e.text);
    if (!parsed) {
      out.push(
        diag(
          'NAPTR_EXPECT_SYNTAX',
          'error',
          'expect directive: write "; expect <urn> -> <next.key.> | U <uri> | S <name> | A <name> | P <text> | fail"',
          where,
          e.text,
        ),
      );
      continue;
    }
    if (e.owner === undefined) {
      out.push(
        diag(
          'NAPTR_EXPECT_NO_OWNER',
          'error',
          'expect directive before any record: it has no owner to test',
          where,
          e.text,
        ),
      );
      continue;
    }
    const rrset = sets.get(e.owner) ?? [];
    if (rrset.length === 0) {
      out.push(
        diag(
          'NAPTR_EXPECT_NO_NAPTR',
          'error',
          `expect directive: ${e.owner} has no NAPTR records to apply`,
          where,
          e.owner,
        ),
      );
      continue;
    }
    const step = dddsStep({
      aus: parsed.urn,
      key: e.owner,
      records: rrset,
      service: 'N2L',
      toDnsKey: (t) => {
        const r = toDnsKey(t);
        return r.ok
          ? { ok: true, value: r.value }
          : { ok: false, error: { code: r.error.code, message: r.error.message } };
      },
    });
    const o = step.outcome;
    let got: string;
    let same: boolean;
    switch (o.kind) {
      case 'next':
        got = o.key;
        same = parsed.kind === 'next' && absolute(parsed.value) === absolute(o.key);
        break;
      case 'terminal':
        got = `${o.flag} ${o.output}`;
        same =
          parsed.kind === o.flag &&
          (o.flag === 'U'
            ? parsed.value === o.output
            : absolute(parsed.value) === absolute(o.output));
        break;
      case 'handoff':
        got = `P ${o.output}`;
        same = parsed.kind === 'P' && parsed.value === o.output;
        break;
      case 'failure':
        got = `fail (${o.code}: ${o.message})`;
        same = parsed.kind === 'fail';
        break;
    }
    if (!same) {
      const want =
        parsed.kind === 'next'
          ? parsed.value
          : parsed.kind === 'fail'
            ? 'fail'
            : `${parsed.kind} ${parsed.value}`;
      out.push(
        diag(
          'NAPTR_EXPECT_MISMATCH',
          'error',
          `expect ${parsed.urn} at ${e.owner}: wanted ${want}, the rules give ${got}`,
          where,
          e.text,
        ),
      );
    }
  }
  return out;
}
