/**
 * The formatter: the exact inverse of `parseLexUrn`. Every node keeps its
 * text as written (case, `%hh`, the `|` or `%7C` date separator), so
 * `formatLexUrn(parse(s).urn) === s` for every valid `s`, and
 * `parse(formatLexUrn(x))` gives back `x` for every well-formed tree.
 */
import type {
  LexDate,
  LexNumbers,
  LexQualified,
  LexUrn,
  LexVersionItem,
  Segment,
} from './types.ts';

function joinSegments(parts: readonly Segment[], sep: string): string {
  let out = '';
  for (let i = 0; i < parts.length; i++) out += (i ? sep : '') + parts[i]!.text;
  return out;
}

function qualified(q: LexQualified): string {
  let out = q.value.text;
  for (const s of q.specifications) out += ';' + s.text;
  return out;
}

function date(d: LexDate): string {
  return d.iso.text + (d.separator !== undefined ? d.separator + (d.local?.text ?? '') : '');
}

function numbers(n: LexNumbers): string {
  return n.kind === 'lex' ? n.text.text : joinSegments(n.ids, ',');
}

function versionItem(v: LexVersionItem): string {
  return v.kind === 'date' ? date(v.date) : v.text.text;
}

/** Write a LEX URN tree back as text (spans are ignored). */
export function formatLexUrn(urn: LexUrn): string {
  let out = urn.scheme.text + ':' + urn.nid.text + ':';
  const j = urn.jurisdiction;
  out += j.code.text;
  for (const u of j.units) out += ';' + u.text;
  const w = urn.work;
  out += ':';
  w.authority.issuers.forEach((issuer, i) => {
    out += (i ? '+' : '') + issuer.name.text;
    for (const b of issuer.bodyFunctions) out += ';' + b.text;
  });
  out += ':' + qualified(w.measure) + ':';
  const d = w.details;
  out += d.dates ? d.dates.map(date).join(',') : (d.period?.text ?? '');
  out += ';' + numbers(d.numbers);
  for (const a of w.annexes) out += ':' + qualified(a);
  if (urn.expression) {
    const v = urn.expression.version;
    out += '@' + versionItem(v.amendment);
    for (const e of v.events) out += ';' + versionItem(e);
    if (urn.expression.language) out += ':' + urn.expression.language.text;
  }
  if (urn.manifestation) {
    const m = urn.manifestation;
    out += '$' + qualified(m.editor) + ':' + qualified(m.format);
    if (m.component) {
      out += ':' + qualified(m.component);
      if (m.feature) out += ':' + qualified(m.feature);
    }
  }
  if (urn.partition) out += '~' + urn.partition.text;
  if (urn.rComponent) out += '?+' + urn.rComponent.text;
  if (urn.qComponent) out += '?=' + urn.qComponent.text;
  if (urn.fComponent) out += '#' + urn.fComponent.text;
  return out;
}
