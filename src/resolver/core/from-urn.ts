/**
 * The bridge from the LEX URN library to the matcher: parse, normalise (RFC
 * 9676 section 10.3), and cut the canonical text into the parts the
 * catalogue compares, at the spans the URN library reports (no second parser).
 */
import { canonicalizeLexUrn, parseLexIri, parseLexUrn, type LexUrn } from '../../urn/core/index.ts';
import type { UrnCode } from '../../urn/core/codes.ts';
import type { MatchQuery, UrnAnalysis, UrnAnalysisErr, WorkKey } from './model.ts';

export interface AnalyseOptions {
  /**
   * Accept a reference with no number (`...:legge:2006-05-14`, "normal" in
   * citations, RFC 9676 section 10.3; a lone non-year period is read as the
   * number). Off for catalogue rows.
   */
  readonly incomplete?: boolean;
}

/** Stands in for the missing number while the URN library parses an incomplete reference. */
const PLACEHOLDER = 'lex-0';

/**
 * Parse and normalise one LEX URN (reference) into a `MatchQuery`; raw
 * non-ASCII text is accepted and percent-encoded first (`parseLexIri`, as
 * `normalizeLexUrn` does). Never throws.
 */
export function analyseLexUrn(text: string, options: AnalyseOptions = {}): UrnAnalysis {
  const read = parseLexIri(text);
  let first = read.parsed;
  let missingNumber = false;
  if (!first.ok && options.incomplete) {
    // The error's span in the URI form (the same object when nothing was encoded).
    const e = read.first < 0 ? first : parseLexUrn(read.iri);
    const err = e.ok ? undefined : e.error;
    if (err?.code === 'LEX_MISSING_NUMBER' && err.span.start === err.span.end) {
      const at = err.span.start;
      const patched = parseLexUrn(`${read.iri.slice(0, at)};${PLACEHOLDER}${read.iri.slice(at)}`);
      if (patched.ok) {
        first = patched;
        missingNumber = true;
      }
    }
  }
  if (!first.ok) {
    const e = first.error;
    return analysisRefused(e.code, e.message, e.span);
  }
  const canonical = canonicalizeLexUrn(first.value).canonical;
  let tree: LexUrn = first.value;
  if (canonical !== first.value.input) {
    const again = parseLexUrn(canonical);
    /* c8 ignore next 8: the canonical form of a valid URN is valid */
    if (!again.ok) {
      return analysisRefused(
        again.error.code,
        `canonical form does not parse: ${again.error.message}`,
        undefined,
      );
    }
    tree = again.value;
  }
  return { ok: true, value: queryFromTree(tree, missingNumber) };
}

function analysisRefused(
  code: UrnCode,
  message: string,
  span: { readonly start: number; readonly end: number } | undefined,
): UrnAnalysisErr {
  return { ok: false, error: span === undefined ? { code, message } : { code, message, span } };
}

/** `analyseLexUrn` with incomplete references accepted (the resolver's request path). */
export function analyseReference(text: string): UrnAnalysis {
  return analyseLexUrn(text, { incomplete: true });
}

function queryFromTree(u: LexUrn, missingNumber: boolean): MatchQuery {
  const t = u.input;
  const s = (span: { start: number; end: number }): string => t.slice(span.start, span.end);
  const w = u.work;
  const d = w.details;
  const work: {
    -readonly [K in keyof WorkKey]: WorkKey[K] extends readonly string[] ? string[] : WorkKey[K];
  } = {
    jurisdiction: s(u.jurisdiction.span),
    authority: s(w.authority.span),
    measure: s(w.measure.span),
    dates: d.dates ? d.dates.map((x) => x.iso.text) : [],
    period: d.period ? d.period.text : null,
    numbers: d.numbers.kind === 'ids' ? d.numbers.ids.map((x) => x.text) : [d.numbers.text.text],
    annexes: w.annexes.map((a) => s(a.span)),
  };
  // Without the placeholder number (and its ";"), the names below are the reference as written.
  const cut = missingNumber ? { start: d.numbers.span.start - 1, end: d.numbers.span.end } : null;
  const s2 = (end: number): string =>
    cut && end >= cut.end ? t.slice(0, cut.start) + t.slice(cut.end, end) : t.slice(0, end);
  if (missingNumber) {
    work.numbers.length = 0;
    // A lone numeric element that is not a year (`...:lei:10406`, `185.273`) is
    // more likely the number; words stay a period (`14.legislature`).
    if (work.period !== null && !/^\d{4}$/.test(work.period) && /^\d[\d.-]*$/.test(work.period)) {
      work.numbers.push(work.period);
      work.period = null;
    }
  }
  const workUrn = s2(w.span.end);
  const end = u.manifestation?.span.end ?? u.expression?.span.end ?? w.span.end;
  const ex = u.expression;
  const m = u.manifestation;
  return {
    urn: s2(end),
    workUrn,
    work,
    expression: ex
      ? {
          version: s(ex.version.span),
          versionDate:
            ex.version.amendment.kind === 'date' ? ex.version.amendment.date.iso.text : null,
          language: ex.language ? ex.language.text : null,
        }
      : null,
    manifestation: m
      ? {
          editor: s(m.editor.span),
          format: s(m.format.span),
          component: m.component ? s(m.component.span) : null,
          feature: m.feature ? s(m.feature.span) : null,
        }
      : null,
    partition: u.partition ? u.partition.text : null,
    qComponent: u.qComponent ? u.qComponent.text : null,
  };
}
