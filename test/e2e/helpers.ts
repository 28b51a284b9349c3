/**
 * The sample deployment for end-to-end tests: `config/dev.json` started by
 * the same function `lexroute dev` uses, on free ports (the resolvers' port
 * moved, so the zones are served from rewritten copies), and what each
 * sample URN must resolve to.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { validateDevConfig, type DevConfig } from '../../src/dev/config.ts';
import { startDevChain, type RunningDevChain } from '../../src/dev/chain.ts';
import { resolveLexUrn, type ResolveResult } from '../../src/client/resolve.ts';
import type { ServedZone } from './daemons.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const DEV_CONFIG_FILE = path.join(REPO, 'config/dev.json');

export function devConfig(): DevConfig {
  const v = validateDevConfig(JSON.parse(readFileSync(DEV_CONFIG_FILE, 'utf8')));
  if (!v.ok) throw new Error(`config/dev.json: ${JSON.stringify(v.issues)}`);
  return v.config;
}

/** The chain on free ports; with `dnssec`, signed at start as `lexroute dev --dnssec` signs it. */
export async function startSampleChain(
  config: DevConfig = devConfig(),
  options: { dnssec?: boolean } = {},
): Promise<RunningDevChain> {
  return startDevChain({ config, cwd: REPO, dnsPort: 0, httpPort: 0, ...options });
}

/** The zones each DNS instance of the chain serves (the files it loaded). */
export function servedZones(chain: RunningDevChain): { host: string; zones: ServedZone[] }[] {
  return chain.dns.map((d) => ({
    host: d.host,
    zones: d.origins.map((origin) => ({ origin, file: chain.zoneFiles.get(origin)! })),
  }));
}

/**
 * What each sample URN of config/dev.json resolves to. Written from the zone
 * files (the keys and the resolver the terminal rule names) and from the
 * sample catalogue rows (the document URL), not from a run.
 */
export interface Expected {
  /** The NAPTR keys asked, in order. */
  readonly keys: readonly string[];
  /** Host of the resolver URL: the terminal rule's address, or the SRV target. */
  readonly resolverHost: string;
  /** The document URL (the catalogue row's URL, plus #partition). */
  readonly url: string;
}

const HEAD = ['lex.urn.arpa.', 'lex-nameserver.nic.it.'];

export const EXPECTED: Readonly<Record<string, Expected>> = {
  'urn:lex:it:stato:legge:2000-04-03;56~art1': {
    keys: [...HEAD, 'it.lex-routing.nic.it.', 'lex.normattiva.it.'],
    resolverHost: '127.0.0.1',
    // priority 5 is the best of the four manifestations; ~art1 -> #art1 (RFC 9676 section 5.8)
    url: 'https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:2000-04-03;56#art1',
  },
  'urn:lex:br:federal:lei:2002-01-10;10406': {
    keys: [...HEAD, 'br.lex-routing.nic.it.', 'lex.senado.gov.br.'],
    resolverHost: '127.0.0.1',
    // the most recent version (@2024-06-28), RFC 9676 section 10.3 item 5
    url: 'https://www.planalto.gov.br/ccivil_03/leis/2002/l10406compilada.htm',
  },
  'urn:lex:br;sao.paulo:estadual:lei:1998-12-30;10177': {
    keys: [...HEAD, 'br.lex-routing.nic.it.', 'lex.senado.gov.br.', 'lex.sao-paulo.gov.br.'],
    resolverHost: '127.0.0.2',
    url: 'https://www.al.sp.gov.br/repositorio/legislacao/lei/1998/lei-10177-30.12.1998.html',
  },
  'urn:lex:br;sao.paulo;campinas:municipal:lei.complementar:2018-01-08;189': {
    keys: [
      ...HEAD,
      'br.lex-routing.nic.it.',
      'lex.senado.gov.br.',
      'lex.sao-paulo.gov.br.',
      'lex.campinas.sp.gov.br.',
    ],
    resolverHost: 'resolver.lex.campinas.sp.gov.br',
    url: 'https://bibliotecajuridica.campinas.sp.gov.br/index/visualizarleis/id/139626',
  },
  'urn:lex:de;stadt.m%C3%BCnchen:stadtrat:satzung:1997-12-09;hauptsatzung': {
    keys: [
      ...HEAD,
      'de.lex-routing.nic.it.',
      'lex.example.de.',
      'stadt.xn--mnchen-3ya.lex.example.de.',
    ],
    resolverHost: '127.0.0.1',
    url: 'https://stadt.muenchen.de/dam/Home/Stadtverwaltung/Direktorium/Stadtrecht/pdf_1_1_0.pdf',
  },
  'urn:lex:de:bund:gesetz:1896-08-18;bgb': {
    keys: [...HEAD, 'de.lex-routing.nic.it.', 'lex.example.de.', 'bund.authority.lex.example.de.'],
    resolverHost: '127.0.0.1',
    // the most recent version is the English one of 2002-01-02
    url: 'https://www.gesetze-im-internet.de/englisch_bgb/',
  },
  'urn:lex:ru:%D0%BF%D1%80%D0%B5%D0%B7%D0%B8%D0%B4%D0%B5%D0%BD%D1%82:%D1%83%D0%BA%D0%B0%D0%B7:2020-07-21;474':
    {
      keys: [
        ...HEAD,
        'ru.lex-routing.nic.it.',
        'lex.pravo.gov.ru.',
        'xn--d1abbgf6aiiy.lex.pravo.gov.ru.',
      ],
      resolverHost: '127.0.0.2',
      url: 'http://www.kremlin.ru/acts/bank/45726',
    },
  'urn:lex:ru:prezident:ukaz:2020-07-21;474': {
    keys: [...HEAD, 'ru.lex-routing.nic.it.', 'lex.pravo.gov.ru.', 'prezident.lex.pravo.gov.ru.'],
    resolverHost: '127.0.0.2',
    url: 'http://www.kremlin.ru/acts/bank/45726',
  },
  'urn:lex:eu:consiglio:direttiva:2004-12-13;113': {
    keys: [...HEAD, 'eu.lex-routing.nic.it.', 'lex.europa.eu.', 'consiglio.lex.europa.eu.'],
    resolverHost: '127.0.0.1',
    url: 'https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32004L0113',
  },
  'urn:lex:eu:european.parliament+council:regulation:2016-04-27;2016-679~art17': {
    keys: [
      ...HEAD,
      'eu.lex-routing.nic.it.',
      'lex.europa.eu.',
      'european.parliament.lex.europa.eu.',
    ],
    resolverHost: '127.0.0.1',
    url: 'https://eur-lex.europa.eu/legal-content/EN/TXT/HTML/?uri=CELEX:32016R0679R(02)#art17',
  },
  'urn:lex:un.org:united.nations;general.assembly:resolution:1961-11-28;a-res-1661': {
    keys: [...HEAD, 'un.org.lex-routing.nic.it.', 'lex.un.org.'],
    resolverHost: '127.0.0.2',
    url: 'https://undocs.org/en/A/RES/1661(XVI)',
  },
  'urn:lex:eec.lex.arpa:court.justice:judgement:1960-04-04;4-59': {
    keys: [...HEAD, 'eec.lex.arpa.lex-routing.nic.it.', 'eec.lex.arpa.'],
    resolverHost: '127.0.0.2',
    url: 'https://eur-lex.europa.eu/legal-content/FR/TXT/?uri=CELEX:61959CJ0004',
  },
};

/** What a resolution gives, in a form two set-ups can be compared on. */
export interface Outcome {
  readonly ok: boolean;
  readonly urls?: readonly string[];
  readonly resolverUrl?: string;
  readonly keys: readonly string[];
  readonly code?: string;
  readonly message?: string;
}

export async function outcome(
  urn: string,
  options: Parameters<typeof resolveLexUrn>[1],
): Promise<Outcome> {
  try {
    const r: ResolveResult = await resolveLexUrn(urn, options);
    return { ok: true, urls: r.urls, resolverUrl: r.resolverUrl, keys: naptrKeys(r.trace.steps) };
  } catch (e) {
    const err = e as { code?: string; message?: string; trace?: { steps: readonly unknown[] } };
    return {
      ok: false,
      code: err.code ?? 'INTERNAL',
      message: err.message ?? String(e),
      keys: naptrKeys(err.trace?.steps ?? []),
    };
  }
}

function naptrKeys(steps: readonly unknown[]): string[] {
  return steps
    .filter((s): s is { kind: 'naptr'; key: string } => (s as { kind?: string }).kind === 'naptr')
    .map((s) => s.key);
}

/** The URL with the resolver's port replaced by PORT (chains on different ports compare equal). */
export function portless(url: string | undefined): string | undefined {
  return url?.replace(/^(https?:\/\/[^/:]+):\d+/, '$1:PORT');
}
