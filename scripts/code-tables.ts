/**
 * The list of every code table of lexroute, for docs/codes.md (written by
 * `npm run codes`, i.e. scripts/gen-codes.ts) and for test/codes.test.ts,
 * which checks that every code used in src is registered in exactly one
 * table, that every registered code is used, and that docs/codes.md is up to
 * date.
 *
 * A new family of codes gets its table (a `codes.ts` beside the module that
 * reports them: pure ones under src/PART/core, edge ones in their layer) and a
 * line here.
 */
import { CATALOGUE_CODES } from '../src/resolver/catalogue/codes.ts';
import { CLI_CODES } from '../src/cli/codes.ts';
import { CLIENT_CODES } from '../src/ddds/core/client-codes.ts';
import { CONFIG_CODES } from '../src/config/codes.ts';
import { HOST_PORT_CODES } from '../src/kit/core/codes.ts';
import { MATCH_CODES, ROW_CODES } from '../src/resolver/core/codes.ts';
import { DDDS_CODES, WALK_CODES } from '../src/ddds/core/codes.ts';
import { ROUTE_CODES } from '../src/routes/core/codes.ts';
import { URN_CODES } from '../src/urn/core/codes.ts';
import { DOH_CODES, QUERY_REFUSAL_CODES, WIRE_CODES } from '../src/dns/core/wire/codes.ts';
import { ZONE_CODES } from '../src/dns/core/zone/codes.ts';
import { NAPTR_LINT_CODES } from '../src/ddds/core/lint/codes.ts';
import { DEV_CODES } from '../src/dev/codes.ts';
import { DNSSEC_KEY_CODES } from '../src/dnssec/core/codes.ts';
import { VALIDATION_CODES } from '../src/dnssec/core/validate/codes.ts';
import { RESOLVER_HTTP_CODES } from '../src/resolver/http/codes.ts';
import { SERVER_CODES } from '../src/authority/codes.ts';
import { CATALOG_IN_CODES, TSIG_CODES, XFR_IN_CODES } from '../src/xfr/core/codes.ts';

export interface CodeTable {
  /** Heading in docs/codes.md. */
  readonly title: string;
  /** The file that defines it, from the repository root. */
  readonly file: string;
  /** The exported constant. */
  readonly name: string;
  readonly codes: Readonly<Record<string, string>>;
}

export const CODE_TABLES: readonly CodeTable[] = [
  {
    title: 'URNs, LEX names and DNS keys',
    file: 'src/urn/core/codes.ts',
    name: 'URN_CODES',
    codes: URN_CODES,
  },
  {
    title: 'DDDS: substitution expressions, EREs, NAPTR records, the step',
    file: 'src/ddds/core/codes.ts',
    name: 'DDDS_CODES',
    codes: DDDS_CODES,
  },
  { title: 'The DDDS walk', file: 'src/ddds/core/codes.ts', name: 'WALK_CODES', codes: WALK_CODES },
  {
    title: 'Zone files, zone checks and loading',
    file: 'src/dns/core/zone/codes.ts',
    name: 'ZONE_CODES',
    codes: ZONE_CODES,
  },
  {
    title: 'The NAPTR lint of zones',
    file: 'src/ddds/core/lint/codes.ts',
    name: 'NAPTR_LINT_CODES',
    codes: NAPTR_LINT_CODES,
  },
  {
    title: 'DNS messages (server query parser, names)',
    file: 'src/dns/core/wire/codes.ts',
    name: 'WIRE_CODES',
    codes: WIRE_CODES,
  },
  {
    title: 'DNS queries the server refuses (the rcode is in server/rcodes.ts)',
    file: 'src/dns/core/wire/codes.ts',
    name: 'QUERY_REFUSAL_CODES',
    codes: QUERY_REFUSAL_CODES,
  },
  {
    title: 'DNS over HTTPS (RFC 8484)',
    file: 'src/dns/core/wire/codes.ts',
    name: 'DOH_CODES',
    codes: DOH_CODES,
  },
  {
    title: 'Routing tables and routes',
    file: 'src/routes/core/codes.ts',
    name: 'ROUTE_CODES',
    codes: ROUTE_CODES,
  },
  {
    title: 'Catalogue rows',
    file: 'src/resolver/core/codes.ts',
    name: 'ROW_CODES',
    codes: ROW_CODES,
  },
  {
    title: 'Catalogue match: outcomes and reasons',
    file: 'src/resolver/core/codes.ts',
    name: 'MATCH_CODES',
    codes: MATCH_CODES,
  },
  {
    title: 'Catalogue store, import and registry',
    file: 'src/resolver/catalogue/codes.ts',
    name: 'CATALOGUE_CODES',
    codes: CATALOGUE_CODES,
  },
  {
    title: 'Client: DNS, THTTP and DNSSEC',
    file: 'src/ddds/core/client-codes.ts',
    name: 'CLIENT_CODES',
    codes: CLIENT_CODES,
  },
  {
    title: 'Resolver HTTP answers',
    file: 'src/resolver/http/codes.ts',
    name: 'RESOLVER_HTTP_CODES',
    codes: RESOLVER_HTTP_CODES,
  },
  {
    title: 'Server start-up and control socket',
    file: 'src/authority/codes.ts',
    name: 'SERVER_CODES',
    codes: SERVER_CODES,
  },
  {
    title: 'Zone transfers in (secondary zones)',
    file: 'src/xfr/core/codes.ts',
    name: 'XFR_IN_CODES',
    codes: XFR_IN_CODES,
  },
  {
    title: 'TSIG (RFC 8945): signed requests and answers (the rcode is in server/rcodes.ts)',
    file: 'src/xfr/core/codes.ts',
    name: 'TSIG_CODES',
    codes: TSIG_CODES,
  },
  {
    title: 'Catalog zones consumed (RFC 9432, secondaryCatalogs)',
    file: 'src/xfr/core/codes.ts',
    name: 'CATALOG_IN_CODES',
    codes: CATALOG_IN_CODES,
  },
  {
    title: 'Configuration files',
    file: 'src/config/codes.ts',
    name: 'CONFIG_CODES',
    codes: CONFIG_CODES,
  },
  {
    title: 'Addresses (`host:port`: listen addresses, DNS servers, control ports)',
    file: 'src/kit/core/codes.ts',
    name: 'HOST_PORT_CODES',
    codes: HOST_PORT_CODES,
  },
  { title: 'lexroute dev', file: 'src/dev/codes.ts', name: 'DEV_CODES', codes: DEV_CODES },
  { title: 'The command line', file: 'src/cli/codes.ts', name: 'CLI_CODES', codes: CLI_CODES },
  {
    title: 'DNSSEC keys and signing',
    file: 'src/dnssec/core/codes.ts',
    name: 'DNSSEC_KEY_CODES',
    codes: DNSSEC_KEY_CODES,
  },
  {
    title: "The client's DNSSEC validation: bogus reasons and insecure proofs",
    file: 'src/dnssec/core/validate/codes.ts',
    name: 'VALIDATION_CODES',
    codes: VALIDATION_CODES,
  },
];

/**
 * Codes built at run time from a prefix and another code (a template literal
 * in src): the prefix, where, and what follows it.
 */
export const DERIVED_PREFIXES: Readonly<Record<string, { file: string; meaning: string }>> = {
  NAPTR_: {
    file: 'src/ddds/core/lint/naptr-lint.ts',
    meaning:
      'NAPTR_ + a SUBST_* or ERE_* code (DDDS_CODES): the NAPTR lint found a bad REGEXP field',
  },
  TABLE_YAML_: {
    file: 'src/routes/table.ts',
    meaning:
      'TABLE_YAML_ + a code of the yaml package (e.g. TABLE_YAML_BAD_INDENT): a YAML syntax error',
  },
};

/**
 * SCREAMING_SNAKE strings in src that are not lexroute codes: other
 * libraries' error codes that lexroute reads, and environment variables.
 */
export const FOREIGN_NAMES: Readonly<Record<string, string>> = {
  ERR_HTTP_REQUEST_TIMEOUT: "Node's http server error code",
  HPE_HEADER_OVERFLOW: "Node's HTTP parser error code (a head over maxHeaderSize)",
  UND_ERR_CONNECT_TIMEOUT: "undici's error code",
  UND_ERR_HEADERS_TIMEOUT: "undici's error code",
  UND_ERR_BODY_TIMEOUT: "undici's error code",
  LEXROUTE_RESOLVER_SERVICE:
    'an environment variable of the workers of startResolver({ workers }) (their options)',
};

/** Template-literal prefixes in src that are not codes built at run time (names, types). */
export const FOREIGN_PREFIXES: Readonly<Record<string, string>> = {
  UNKNOWN_:
    "dns-packet's spelling of a type or class number without a mnemonic (core/wire/response.ts)",
  TSIG_:
    'a template literal type (`ServerStartError.code`, server/server.ts) for the TSIG_KEY_* codes of SERVER_CODES',
};

const escape = (text: string) =>
  text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/`/g, '\\`').replace(/</g, '&lt;');

/** The text of docs/codes.md. */
export function renderCodesDoc(): string {
  const out: string[] = [
    '# Codes',
    '',
    '<!-- Generated from the code tables by `npm run codes` (scripts/gen-codes.ts); do not edit. -->',
    '',
    'Every diagnostic and error code lexroute reports, by family, with its meaning. Codes are',
    'stable API: they are never renamed or reused. A finding that is only a warning says so.',
    'Each table is defined in the file named under its heading; `test/codes.test.ts` checks that',
    'every code used in `src` is in exactly one table and that this page is up to date.',
    '',
  ];
  for (const t of CODE_TABLES) {
    out.push(`## ${t.title}`, '', `\`${t.name}\` in \`${t.file}\`.`, '', '| Code | Meaning |');
    out.push('| --- | --- |');
    for (const [code, meaning] of Object.entries(t.codes)) {
      out.push(`| \`${code}\` | ${escape(meaning)} |`);
    }
    out.push('');
  }
  out.push('## Derived codes', '', '| Prefix | Meaning |', '| --- | --- |');
  for (const [prefix, d] of Object.entries(DERIVED_PREFIXES)) {
    out.push(`| \`${prefix}*\` | ${escape(d.meaning)} (\`${d.file}\`) |`);
  }
  out.push('');
  return out.join('\n');
}
