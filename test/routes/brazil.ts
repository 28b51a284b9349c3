/**
 * The Brazil fixture of the routing-table tests and bench/chain-check.ts: a
 * federal table (lex.senado.gov.br) that routes each state of LexML's
 * localidade.csv to its own zone, one table per state zone, the sample
 * urn.arpa and nic.it zones, all built with `lexroute zone build` into one
 * folder.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { csvFields } from '../../src/routes/coverage.ts';
import { corpusOrSkip, titled } from '../helpers/tools.ts';

/** LexML's localidade.csv in ../shared (skipped without it outside CI, a failure in CI). */
export const LOCALIDADE_CORPUS = corpusOrSkip(
  'data/anchors-ddds/okfn-brasil-lexml-vocabulary/localidade.csv',
);
export const LOCALIDADE = LOCALIDADE_CORPUS.path;
/** A suite title that says when it is skipped for want of localidade.csv. */
export const withLocalidade = (title: string): string => titled(title, LOCALIDADE_CORPUS);
export const ROOT = new URL('../../', import.meta.url).pathname;

export interface Localidade {
  readonly about: string;
  readonly broader: string;
  readonly altLabel: string;
}

export function readLocalidade(): Localidade[] {
  const lines = readFileSync(LOCALIDADE, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l !== '');
  const head = csvFields(lines[0]!);
  const col = (name: string) => head.indexOf(name);
  return lines.slice(1).map((l) => {
    const f = csvFields(l);
    return { about: f[col('about')]!, broader: f[col('broader')]!, altLabel: f[col('altLabel')]! };
  });
}

/** The states: entries directly under #br with a two-letter acronym (26 states and the Distrito Federal). */
export function states(rows: readonly Localidade[]): Localidade[] {
  return rows.filter((r) => r.broader === '#br' && /^[A-Z]{2}$/.test(r.altLabel));
}

export const FEDERAL_URL = 'http://127.0.0.1:8300/uri-res/{service}?{urn}';
export const stateZone = (s: Localidade) => `lex.${s.altLabel.toLowerCase()}.gov.br.`;
export const stateUrl = (s: Localidade) =>
  `http://resolver.${stateZone(s).slice(0, -1)}:8300/uri-res/{service}?{urn}`;

export function federalTable(rows: readonly Localidade[]): string {
  const routes = states(rows)
    .map((s) => `  - prefix: ${s.about}\n    zone: ${stateZone(s)}\n    comment: ${s.altLabel}\n`)
    .join('');
  return `zone: lex.senado.gov.br.
comment: Brazil, federal; every state of LexML's localidade.csv to its own zone.
soa: { mname: ns1.lex.senado.gov.br., rname: hostmaster.senado.gov.br., serial: 2026112501 }
ns:
  - { name: ns1.lex.senado.gov.br., address: 127.0.0.1 }
routes:
${routes}default:
  url: ${FEDERAL_URL}
  services: [N2L, N2Ls, N2C]
`;
}

export function stateTable(s: Localidade): string {
  return `zone: ${stateZone(s)}
soa: { serial: 2026112501 }
ns:
  - { name: ns1.${stateZone(s)}, address: 127.0.0.1 }
routes: []
default:
  url: ${stateUrl(s)}
  services: [N2L, N2Ls]
  example: urn:lex:${s.about}:estadual:lei:2000-01-01;1
`;
}

/**
 * Write the tables and build the zones with `build(tablePath, zonePath)`.
 * Returns the folder of zones and the folder of tables.
 */
export async function brazilChain(
  build: (table: string, zone: string) => Promise<void>,
): Promise<{ dir: string; zones: string; tables: string; rows: Localidade[] }> {
  const rows = readLocalidade();
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-brazil-'));
  const zones = join(dir, 'zones');
  const tables = join(dir, 'tables');
  mkdirSync(zones);
  mkdirSync(tables);
  copyFileSync(join(ROOT, 'zones/urn.arpa.zone'), join(zones, 'urn.arpa.zone'));
  copyFileSync(join(ROOT, 'zones/nic.it.zone'), join(zones, 'nic.it.zone'));
  const all: [string, string][] = [['lex.senado.gov.br.', federalTable(rows)]];
  for (const s of states(rows)) all.push([stateZone(s), stateTable(s)]);
  for (const [zone, text] of all) {
    const t = join(tables, `${zone}yaml`);
    writeFileSync(t, text);
    await build(t, join(zones, `${zone}zone`));
  }
  return { dir, zones, tables, rows };
}
