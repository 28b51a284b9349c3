import { expect } from 'vitest';
import {
  parseLexUrn,
  type LexDate,
  type LexQualified,
  type LexUrn,
  type LexVersionItem,
} from '../../src/urn/core/index.ts';

/** Parse and fail the test with the diagnostics when the URN is rejected. */
export function mustParse(text: string): LexUrn {
  const r = parseLexUrn(text);
  if (!r.ok) expect.fail(`${text} rejected: ${JSON.stringify(r.errors)}`);
  return r.value;
}

/** The code of the (single) error, or 'OK'. */
export function codeOf(text: string): string {
  const r = parseLexUrn(text);
  return r.ok ? 'OK' : r.errors[0]!.code;
}

const q = (x: LexQualified): string[] => [x.value.text, ...x.specifications.map((s) => s.text)];
const d = (x: LexDate): string =>
  x.iso.text + (x.separator !== undefined ? `|${x.local?.text}` : '');
const v = (x: LexVersionItem): string => (x.kind === 'date' ? d(x.date) : x.text.text);

/** A plain projection of the tree, for hand-written expectations. Absent parts are left out. */
export function summary(urn: LexUrn): Record<string, unknown> {
  const s: Record<string, unknown> = {
    jurisdiction: [urn.jurisdiction.code.text, ...urn.jurisdiction.units.map((u) => u.text)],
    authority: urn.work.authority.issuers.map((i) => [
      i.name.text,
      ...i.bodyFunctions.map((b) => b.text),
    ]),
    measure: q(urn.work.measure),
  };
  const det = urn.work.details;
  if (det.dates) s.dates = det.dates.map(d);
  if (det.period) s.period = det.period.text;
  s.numbers =
    det.numbers.kind === 'lex' ? { lex: det.numbers.digits } : det.numbers.ids.map((i) => i.text);
  if (urn.work.annexes.length) s.annexes = urn.work.annexes.map(q);
  if (urn.expression) {
    s.version = [v(urn.expression.version.amendment), ...urn.expression.version.events.map(v)];
    if (urn.expression.language) s.language = urn.expression.language.text;
  }
  if (urn.manifestation) {
    const m = urn.manifestation;
    s.editor = q(m.editor);
    s.format = q(m.format);
    if (m.component) s.component = q(m.component);
    if (m.feature) s.feature = q(m.feature);
  }
  if (urn.partition) s.partition = urn.partition.text;
  if (urn.rComponent) s.r = urn.rComponent.text;
  if (urn.qComponent) s.q = urn.qComponent.text;
  if (urn.fComponent) s.f = urn.fComponent.text;
  return s;
}

/** Every node with a span: its span lies inside its parent's and leaves' text is the input slice. */
export function checkSpans(urn: LexUrn): number {
  let checked = 0;
  const walk = (node: unknown, parent: { start: number; end: number }): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const x of node) walk(x, parent);
      return;
    }
    const o = node as Record<string, unknown>;
    let here = parent;
    if (o.span && typeof o.span === 'object') {
      const span = o.span as { start: number; end: number };
      expect(span.start).toBeGreaterThanOrEqual(parent.start);
      expect(span.end).toBeLessThanOrEqual(parent.end);
      expect(span.start).toBeLessThanOrEqual(span.end);
      if (typeof o.text === 'string') expect(urn.input.slice(span.start, span.end)).toBe(o.text);
      here = span;
      checked++;
    }
    for (const [k, val] of Object.entries(o)) if (k !== 'span' && k !== 'input') walk(val, here);
  };
  walk(urn, { start: 0, end: urn.input.length });
  return checked;
}
