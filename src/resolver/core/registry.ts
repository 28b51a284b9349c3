/**
 * Registries for normalisation (RFC 9676 section 10.3): jurisdictions,
 * authorities and measure types, each a code with labels, acronyms and a
 * broader entry (as the LexML Brasil vocabularies). Before matching, an
 * element that is not a code but whose folded label (`Lei Ordinária` ->
 * `lei.ordinaria`) names exactly one entry becomes its code; one naming
 * several is reported as ambiguous and left alone. Pure.
 */
import type { MatchQuery } from './model.ts';

export type RegistryKind = 'jurisdiction' | 'authority' | 'measure';

export interface RegistryEntry {
  readonly kind: RegistryKind;
  /** The canonical code, as it appears in URNs (`supremo.tribunal.federal`, `br;sao.paulo`). */
  readonly code: string;
  readonly label: string;
  readonly altLabels: readonly string[];
  readonly acronyms: readonly string[];
  /** The code of the broader entry (a state for a municipality); null when none. */
  readonly broader: string | null;
}

/** How a label named its entry. */
export type LabelKind = 'acronym' | 'altLabel' | 'label';

export interface RegistryRewrite {
  readonly element: RegistryKind;
  readonly from: string;
  readonly to: string;
  readonly via: LabelKind;
  /** The registry's spelling of the label that matched (`STF`). */
  readonly label: string;
  readonly message: string;
}

export interface RegistryAmbiguity {
  readonly element: RegistryKind;
  readonly value: string;
  /** The codes it could stand for, sorted. */
  readonly candidates: readonly string[];
  readonly message: string;
}

export interface RegistryResult {
  /** The query with its elements rewritten (the input when nothing was). */
  readonly query: MatchQuery;
  /** Its URN (without partition and q-component, as `MatchQuery.urn`). */
  readonly urn: string;
  readonly rewrites: readonly RegistryRewrite[];
  readonly ambiguous: readonly RegistryAmbiguity[];
}

/** The URN form of a label: lower case, accents dropped, other runs of non-alphanumerics as one `.`. */
export function labelKey(label: string): string {
  return label
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '.')
    .replace(/^\.+|\.+$/g, '');
}

type Lookup = { to: Named } | { candidates: string[] } | null;

interface Named {
  readonly code: string;
  readonly via: LabelKind;
  readonly label: string;
}

const VIA_WORDS: Record<LabelKind, string> = {
  acronym: 'the acronym',
  altLabel: 'an alternative label',
  label: 'the label',
};

export class Registry {
  readonly #codes = new Map<RegistryKind, Set<string>>();
  /** kind -> scope (the broader code for jurisdictions, '' otherwise) + '|' + label key -> entries named. */
  readonly #labels = new Map<RegistryKind, Map<string, Named[]>>();
  #size = 0;

  constructor(entries: Iterable<RegistryEntry>) {
    for (const e of entries) this.add(e);
  }

  get size(): number {
    return this.#size;
  }

  add(e: RegistryEntry): void {
    this.#size++;
    let codes = this.#codes.get(e.kind);
    if (!codes) this.#codes.set(e.kind, (codes = new Set()));
    codes.add(e.code);
    let labels = this.#labels.get(e.kind);
    if (!labels) this.#labels.set(e.kind, (labels = new Map()));
    const scope = e.kind === 'jurisdiction' ? (e.broader ?? '') : '';
    const put = (label: string, via: LabelKind) => {
      const k = labelKey(label);
      if (k === '') return;
      const key = `${scope}|${k}`;
      const list = labels.get(key) ?? [];
      if (!list.some((n) => n.code === e.code)) list.push({ code: e.code, via, label });
      labels.set(key, list);
    };
    for (const a of e.acronyms) put(a, 'acronym');
    for (const a of e.altLabels) put(a, 'altLabel');
    put(e.label, 'label');
  }

  /** True when `code` is a code of this kind. */
  has(kind: RegistryKind, code: string): boolean {
    return this.#codes.get(kind)?.has(code) ?? false;
  }

  /** Resolve one element value: unchanged (a code, or unknown), rewritten, or ambiguous. */
  #lookup(kind: RegistryKind, value: string, scope = ''): Lookup {
    const jurisdictionCode =
      kind === 'jurisdiction' ? (scope === '' ? value : `${scope};${value}`) : value;
    if (this.has(kind, jurisdictionCode)) return null;
    const named = this.#labels.get(kind)?.get(`${scope}|${value}`);
    if (!named || named.length === 0) return null;
    if (named.length > 1) return { candidates: named.map((n) => n.code).sort() };
    return { to: named[0] as Named };
  }

  /** Rewrite a query's jurisdiction, authority and measure through the registries. */
  rewrite(query: MatchQuery): RegistryResult {
    const rewrites: RegistryRewrite[] = [];
    const ambiguous: RegistryAmbiguity[] = [];
    const w = query.work;
    const note = (element: RegistryKind, from: string, r: Lookup): string => {
      if (r === null) return from;
      if ('candidates' in r) {
        ambiguous.push({
          element,
          value: from,
          candidates: r.candidates,
          message: `${element} '${from}' names several registry entries (${r.candidates.join(', ')}): not rewritten`,
        });
        return from;
      }
      const to = r.to;
      rewrites.push({
        element,
        from,
        to: to.code,
        via: to.via,
        label: to.label,
        message: `${element} '${from}' is ${VIA_WORDS[to.via]} '${to.label}' of '${to.code}' in the ${element} registry`,
      });
      return to.code;
    };
    // Jurisdiction: unit by unit, each in the scope of the one before (`br;sp` -> `br;sao.paulo`).
    const units = w.jurisdiction.split(';');
    let jurisdiction = units[0] as string;
    for (const u of units.slice(1)) {
      jurisdiction = note(
        'jurisdiction',
        `${jurisdiction};${u}`,
        this.#lookup('jurisdiction', u, jurisdiction),
      );
    }
    const authority = w.authority
      .split('+')
      .map((part) => note('authority', part, this.#lookup('authority', part)))
      .join('+');
    const measure = note('measure', w.measure, this.#lookup('measure', w.measure));
    const unchanged = { query, urn: query.urn, rewrites: [], ambiguous };
    if (rewrites.length === 0) return unchanged;
    const head = `urn:lex:${w.jurisdiction}:${w.authority}:${w.measure}:`;
    // The canonical URN starts with its elements; anything else is left as it was.
    if (!query.urn.startsWith(head) || !query.workUrn.startsWith(head)) return unchanged;
    const newHead = `urn:lex:${jurisdiction}:${authority}:${measure}:`;
    const rewritten: MatchQuery = {
      ...query,
      urn: newHead + query.urn.slice(head.length),
      workUrn: newHead + query.workUrn.slice(head.length),
      work: { ...w, jurisdiction, authority, measure },
    };
    return { query: rewritten, urn: rewritten.urn, rewrites, ambiguous };
  }
}
