/**
 * `lexroute zone build TABLE` and `lexroute zone explain ZONEFILE...`:
 * routing tables to NAPTR zones and back (src/routes/core/).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { stringify } from 'yaml';
import { buildZone } from '../../routes/core/build.ts';
import {
  explainRules,
  type ExplainedRoute,
  type ExplainFinding,
  type ExplainInput,
  type RuleMatch,
  type RuleTarget,
} from '../../routes/core/explain.ts';
import { normalizeLexUrn } from '../../urn/core/index.ts';
import { naptrFields } from '../../ddds/core/lint/naptr-lint.ts';
import { TYPE_NAPTR } from '../../dns/core/rr/types.ts';
import { formatTableDiagnostic, readRoutingTable } from '../../routes/table.ts';
import { loadZoneFile } from '../../authority/zones/load.ts';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, UsageError, type CliIo } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';

export const BUILD_HELP = `Usage: lexroute zone build TABLE [-o FILE]

Write the zone file that implements a routing table (YAML or JSON): the SOA,
NS and glue, one group of NAPTR rules per route in the table's order (ORDER
100, 110, 120, ...; the default a round hundred above, 200 for up to ten
routes, 100 when there is no other), anchored and escaped REGEXPs with the i flag, a "; expect" line per
route from its example URN, and the SRV and address records the table gives.
The same table always gives the same file.

Table (see README "Routing tables"):
  zone: lex.senado.gov.br.
  soa: { mname: ns1.lex.senado.gov.br., rname: hostmaster.senado.gov.br., serial: 2026112001 }
  ns: [ { name: ns1.lex.senado.gov.br., address: 127.0.0.1 } ]
  index: true                         # many sibling routes: spread over lex-route-index owners
  routes:
    - prefix: br;sao.paulo            # jurisdiction[;unit...][:authority[:measure]]
      zone: lex.sao-paulo.gov.br.     # or url: (U), srv: (S), host: (A), handoff: (P)
  default:                            # or: default: none
    url: http://127.0.0.1:8300/uri-res/{service}?{urn}
    services: [N2L, N2Ls, N2C]

Rules that would not fit in one DNS message at the owner are an error
(TABLE_RRSET_TOO_LARGE); index: true spreads routes one level below one
jurisdiction over owners whose answers each fit in 1,232 octets.

Problems are printed as TABLE:line:col: CODE message.

Options:
  -o, --output FILE  write the zone there (default: standard output)
  -h, --help         show this help

Exit codes: 0 written, 1 the table has errors, 2 usage error.
`;

export const EXPLAIN_HELP = `Usage: lexroute zone explain ZONEFILE... [--json | --table] [--origin NAME]

Print the routing table that the NAPTR rules of zone files implement: per
owner, each route (records of one ORDER with one prefix and target) with its
ORDER, PREFERENCEs, prefix -> target and where its records are. Flags rules
that can never match (ROUTE_NEVER_MATCHES), rules shadowed by a lower ORDER
(ROUTE_SHADOWED) and prefixes that two rules of one ORDER claim
(ROUTE_DOUBLY_CLAIMED).

Options:
  --json         routes and findings as JSON
  --table        the routing table (YAML) that lexroute zone build turns into
                 these rules (one file; its apex rules; fails when a rule has
                 no table form, e.g. a rule copying a unit into the key)
  --origin NAME  zone apex for every file given
  -h, --help     show this help

Exit codes: 0 explained (findings are warnings), 1 a file did not load or
--table is impossible, 2 usage error.
`;

function canonical(urn: string): string {
  const n = normalizeLexUrn(urn);
  return n.ok ? n.canonical : urn;
}

export async function zoneBuild(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, BUILD_HELP, {
    output: { type: 'string', short: 'o' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError('zone build takes exactly one table file');
  const file = positionals[0]!;
  let text: string;
  try {
    text = readFileSync(resolvePath(io.cwd, file), 'utf8');
  } catch (e) {
    const code = 'TABLE_UNREADABLE';
    io.err(`lexroute zone build: ${code} cannot read ${file}: ${(e as Error).message}\n`);
    return exitCodeOf(code);
  }
  const r = readRoutingTable(text);
  if (!r.ok) {
    for (const d of r.diagnostics) io.err(formatTableDiagnostic(file, d) + '\n');
    return exitCodeOfFailure(r.diagnostics);
  }
  for (const d of r.warnings) io.err(formatTableDiagnostic(file, d) + '\n');
  const built = buildZone(r.table, canonical);
  if (built.diagnostics.length > 0) {
    for (const d of built.diagnostics) io.err(formatTableDiagnostic(file, d) + '\n');
    return exitCodeOfFailure(built.diagnostics);
  }
  if (values.output !== undefined) writeFileSync(resolvePath(io.cwd, values.output), built.text);
  else io.out(built.text);
  return EXIT_OK;
}

/** The NAPTR records of a loaded zone file, as explain reads them. */
export function naptrInputs(
  records: readonly {
    owner: string;
    type: number;
    rdata: Uint8Array;
    source?: ExplainInput['source'];
  }[],
): ExplainInput[] {
  const out: ExplainInput[] = [];
  for (const rr of records) {
    if (rr.type !== TYPE_NAPTR) continue;
    const f = naptrFields(rr.rdata);
    if (f) out.push({ ...f, owner: rr.owner, ...(rr.source ? { source: rr.source } : {}) });
  }
  return out;
}

function matchText(m: RuleMatch): string {
  switch (m.kind) {
    case 'prefix':
      return `urn:lex:${m.prefix}${m.boundary === undefined ? ' (no boundary)' : ''}`;
    case 'any':
      return '(any URN)';
    case 'pattern':
      return `(pattern) ${m.regexp}`;
    case 'never':
      return '(never matches)';
  }
}

export function targetText(t: RuleTarget): string {
  switch (t.kind) {
    case 'zone':
      return `zone ${t.name}`;
    case 'copy':
      return `key ${t.template}`;
    case 'U':
      return `U ${t.template}  ${t.services.join(' ')}`;
    case 'S':
    case 'A':
      return `${t.kind} ${t.name}  ${[t.protocol, ...t.services].join(' ')}`;
    case 'P':
      return `P ${t.output}  ${[t.protocol, ...t.services].join(' ')}`;
    case 'dropped':
      return `(dropped: flags ${JSON.stringify(t.flags)})`;
  }
}

function where(r: ExplainedRoute): string {
  const lines = r.positions.map((p) => p.line);
  if (lines.length === 0) return '';
  return lines.length === 1 ? `line ${lines[0]}` : `lines ${lines.join(',')}`;
}

function humanTable(
  file: string,
  origin: string,
  routes: readonly ExplainedRoute[],
  findings: readonly ExplainFinding[],
): string {
  let out = `${file}: ${origin}\n`;
  const owners = [...new Set(routes.map((r) => r.owner))];
  for (const owner of owners) {
    const rows = routes.filter((r) => r.owner === owner);
    out += `  ${owner}\n`;
    const cells = rows.map((r) => [
      String(r.rules.join(',')),
      String(r.order),
      r.preferences.join(','),
      matchText(r.match),
      `-> ${targetText(r.target)}`,
      where(r),
    ]);
    const head = ['rule', 'ORDER', 'PREF', 'prefix', 'target', 'where'];
    const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
    for (const row of [head, ...cells]) {
      out +=
        `    ${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`.replace(
          / +\n$/,
          '\n',
        );
    }
  }
  for (const f of findings) {
    const p = f.position;
    out += `${p ? `${p.file}:${p.line}:${p.column}` : file}: ${f.code} warning: ${f.message}\n`;
  }
  return out;
}

/** The routing table (YAML) of a zone's apex rules, or why there is none. */
function tableOf(
  origin: string,
  routes: readonly ExplainedRoute[],
): { ok: true; text: string } | { ok: false; message: string } {
  const apex = routes.filter((r) => r.owner === origin);
  const other = routes.find((r) => r.owner !== origin);
  if (other)
    return {
      ok: false,
      message: `${other.owner} has NAPTR rules too; a table describes one owner's rules`,
    };
  const out: Record<string, unknown>[] = [];
  let dflt: Record<string, unknown> | 'none' = 'none';
  for (const [i, r] of apex.entries()) {
    const t = r.target;
    let entry: Record<string, unknown>;
    if (t.kind === 'zone') entry = { zone: t.name };
    else if (t.kind === 'U') entry = { url: t.template, services: [...t.services] };
    else if (t.kind === 'S')
      entry = { srv: t.name, services: [...t.services], protocol: t.protocol };
    else if (t.kind === 'A')
      entry = { host: t.name, services: [...t.services], protocol: t.protocol };
    else if (t.kind === 'P')
      entry = { handoff: t.output, services: [...t.services], protocol: t.protocol };
    else return { ok: false, message: `rule ${r.rules[0]} (${targetText(t)}) has no table form` };
    if (r.match.kind === 'any' && i === apex.length - 1) dflt = entry;
    else if (r.match.kind === 'prefix' && r.match.boundary !== undefined)
      out.push({ prefix: r.match.prefix, ...entry });
    else
      return { ok: false, message: `rule ${r.rules[0]} (${matchText(r.match)}) has no table form` };
  }
  return {
    ok: true,
    text: stringify({ zone: origin, routes: out, default: dflt }, { lineWidth: 0 }),
  };
}

export async function zoneExplain(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, EXPLAIN_HELP, {
    json: { type: 'boolean' },
    table: { type: 'boolean' },
    origin: { type: 'string' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  if (positionals.length === 0) throw new UsageError('zone explain needs at least one zone file');
  if (values.table && (values.json || positionals.length !== 1))
    throw new UsageError('--table takes one zone file and no --json');
  let status = EXIT_OK;
  const files: unknown[] = [];
  for (const file of positionals) {
    const r = await loadZoneFile(
      resolvePath(io.cwd, file),
      values.origin !== undefined ? { origin: values.origin } : {},
    );
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    if (r.origin === undefined || errors.length > 0) {
      for (const d of errors)
        io.err(
          `${file}:${d.position?.line ?? 0}:${d.position?.column ?? 0}: ${d.code} ${d.message}\n`,
        );
      status = Math.max(status, exitCodeOfFailure(errors));
      continue;
    }
    const ex = explainRules(naptrInputs(r.records));
    if (values.table) {
      const t = tableOf(r.origin, ex.routes);
      if (!t.ok) {
        const code = 'ROUTE_NO_TABLE_FORM';
        io.err(`lexroute zone explain: ${code} ${file}: ${t.message}\n`);
        return exitCodeOf(code);
      }
      io.out(t.text);
    } else if (values.json)
      files.push({ file, origin: r.origin, routes: ex.routes, findings: ex.findings });
    else io.out(humanTable(file, r.origin, ex.routes, ex.findings));
  }
  if (values.json) io.out(JSON.stringify({ files }, null, 2) + '\n');
  return status;
}
