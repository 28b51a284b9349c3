/**
 * Registries from the LexML Brasil vocabularies, read as they are published
 * (CSV with the columns `about`, `prefLabel`, `altLabel`, `broader`,
 * `facetaAcronimo`): `localidade.csv` (jurisdictions), `autoridade.csv`
 * (authorities) and `tipoDocumento.csv` (measure types) in one folder.
 *
 * The acronym is `facetaAcronimo` before its dash; `altLabel` may list
 * acronyms (`BC, BACEN, BCB`); `broader` scopes a jurisdiction's labels;
 * codes with `:` (one court's documents) are skipped.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Registry, type RegistryEntry, type RegistryKind } from '../core/registry.ts';
import { CsvRecordReader, type CsvEvent } from './csv.ts';
import { CatalogueError } from './codes.ts';

export const LEXML_FILES: Readonly<Record<RegistryKind, string>> = {
  jurisdiction: 'localidade.csv',
  authority: 'autoridade.csv',
  measure: 'tipoDocumento.csv',
};

const ACRONYM_LIST = /^[A-Z0-9]{1,15}(?:\s*,\s*[A-Z0-9]{1,15})+$/;

/** The entries of one LexML vocabulary file's text. */
export function parseLexmlVocabulary(
  kind: RegistryKind,
  text: string,
  file: string,
): RegistryEntry[] {
  const reader = new CsvRecordReader();
  const events: CsvEvent[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((l, i) => reader.push(l, i + 1, events));
  reader.end(events);
  const [head, ...rows] = events;
  if (head?.kind !== 'record') {
    throw new CatalogueError('REGISTRY_BAD_FILE', `${file}: no header line`);
  }
  const col = (name: string) => {
    const i = head.fields.indexOf(name);
    if (i < 0) throw new CatalogueError('REGISTRY_BAD_FILE', `${file}: no '${name}' column`);
    return i;
  };
  const [about, pref, alt, broader, acr] = [
    'about',
    'prefLabel',
    'altLabel',
    'broader',
    'facetaAcronimo',
  ].map(col) as number[];
  const out: RegistryEntry[] = [];
  for (const r of rows) {
    if (r.kind !== 'record') continue;
    const f = (i: number) => (r.fields[i as number] ?? '').replace(/\u00a0/g, ' ').trim();
    const code = f(about as number);
    if (code === '' || (kind !== 'jurisdiction' && code.includes(':'))) continue;
    const altText = f(alt as number);
    const acronyms: string[] = [];
    const altLabels: string[] = [];
    if (ACRONYM_LIST.test(altText)) acronyms.push(...altText.split(/\s*,\s*/));
    else if (altText !== '') altLabels.push(altText);
    const facet = f(acr as number).split(/\s+[–-]\s+/)[0] ?? '';
    if (facet !== '' && !acronyms.includes(facet)) acronyms.push(facet);
    const b = f(broader as number).replace(/^#/, '');
    out.push({
      kind,
      code,
      label: f(pref as number),
      altLabels,
      acronyms,
      broader: b === '' ? null : b,
    });
  }
  return out;
}

/** Read the three vocabularies of a LexML folder into one registry. */
export function readLexmlRegistry(dir: string): Registry {
  return new Registry(readLexmlRegistryEntries(dir));
}

/** The entries of the three vocabularies of a LexML folder. */
export function readLexmlRegistryEntries(dir: string): RegistryEntry[] {
  const entries: RegistryEntry[] = [];
  for (const [kind, name] of Object.entries(LEXML_FILES) as [RegistryKind, string][]) {
    const file = join(dir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new CatalogueError(
        'REGISTRY_UNREADABLE',
        `${file}: ${e instanceof Error ? e.message : String(e)} (a registry folder holds ${Object.values(LEXML_FILES).join(', ')})`,
        { cause: e },
      );
    }
    entries.push(...parseLexmlVocabulary(kind, text, file));
  }
  return entries;
}
