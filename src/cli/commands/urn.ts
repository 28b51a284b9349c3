/**
 * `lexroute urn parse | normalize | key`: read, check, normalise and convert
 * LEX URNs from the command line. Exit codes: 0 valid, 1 invalid, 2 usage.
 */
import {
  normalizeLexUrn,
  parseLexUrn,
  toDnsKey,
  type LexDate,
  type LexQualified,
  type LexUrn,
  type LexVersionItem,
  type UrnDiagnostic,
} from '../../urn/core/index.ts';
import { isAbsolute, resolve } from 'node:path';
import { parseCommandArgs } from '../args.ts';
import { analyseReference } from '../../resolver/core/from-urn.ts';
import type { MatchQuery } from '../../resolver/core/model.ts';
import type { RegistryResult } from '../../resolver/core/registry.ts';
import { readLexmlRegistry } from '../../resolver/catalogue/registry-lexml.ts';
import { CatalogueError } from '../../resolver/catalogue/codes.ts';
import { EXIT_OK, EXIT_USAGE, UsageError, type CliIo, type Command } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';
import { MAIN_HELP, PARSE_HELP, NORMALIZE_HELP, KEY_HELP } from './urn-help.ts';

const OPTIONS = { json: { type: 'boolean' } } as const;

const NORMALIZE_OPTIONS = { ...OPTIONS, registry: { type: 'string' } } as const;

/** The registry rewrites of a canonical URN, or why there are none. */
function registryRewrites(io: CliIo, canonical: string, dir: string): RegistryResult | number {
  let registry;
  try {
    registry = readLexmlRegistry(isAbsolute(dir) ? dir : resolve(io.cwd, dir));
  } catch (e) {
    if (e instanceof CatalogueError) {
      io.err(`lexroute urn: ${e.code}: ${e.message}\n`);
      return exitCodeOf(e.code);
    }
    throw e;
  }
  const a = analyseReference(canonical);
  /* c8 ignore next: a canonical URN that parsed analyses */
  if (!a.ok) return { query: null as never, urn: canonical, rewrites: [], ambiguous: [] };
  const r = registry.rewrite(a.value);
  // The whole URN (partition and q-component included) with the rewritten elements.
  const head = (w: MatchQuery['work']) => `urn:lex:${w.jurisdiction}:${w.authority}:${w.measure}:`;
  const from = head(a.value.work);
  const urn = canonical.startsWith(from)
    ? head(r.query.work) + canonical.slice(from.length)
    : canonical;
  return { ...r, urn };
}

/** `column: CODE message` with the input and a caret line under the span. */
export function formatDiagnostic(input: string, d: UrnDiagnostic): string {
  const start = Math.min(d.span.start, input.length);
  const width = Math.max(1, Math.min(d.span.end, input.length) - start);
  const prefix = d.severity === 'warning' ? 'warning: ' : '';
  return `${input}\n${' '.repeat(start)}${'^'.repeat(width)}\n${prefix}${start + 1}: ${d.code} ${d.message}\n`;
}

function qualified(q: LexQualified): string {
  return [q.value.text, ...q.specifications.map((s) => s.text)].join(' ; ');
}

function date(d: LexDate): string {
  return d.iso.text + (d.local !== undefined ? `  (local date: ${d.local.text || '""'})` : '');
}

function versionItem(v: LexVersionItem): string {
  return v.kind === 'date' ? `date ${date(v.date)}` : v.text.text;
}

/** The readable tree of a parsed LEX URN. */
export function renderTree(urn: LexUrn): string {
  const lines: string[] = [];
  const row = (indent: number, label: string, value?: string): void => {
    const head = '  '.repeat(indent) + label;
    lines.push(value === undefined ? head : `${head.padEnd(18)} ${value}`);
  };
  row(0, 'jurisdiction', urn.jurisdiction.code.text);
  for (const u of urn.jurisdiction.units) row(1, 'unit', u.text);
  row(0, 'work');
  row(1, 'authority');
  for (const issuer of urn.work.authority.issuers) {
    row(2, 'issuer', issuer.name.text);
    for (const b of issuer.bodyFunctions) row(3, 'body/function', b.text);
  }
  row(1, 'measure', qualified(urn.work.measure));
  row(1, 'details');
  const d = urn.work.details;
  if (d.dates) for (const x of d.dates) row(2, 'date', date(x));
  if (d.period) row(2, 'period', d.period.text);
  if (d.numbers.kind === 'lex')
    row(2, 'number', `${d.numbers.text.text}  (lex-N: no official number)`);
  else for (const id of d.numbers.ids) row(2, 'number', id.text);
  urn.work.annexes.forEach((a, i) =>
    row(1 + i, i === 0 ? 'annex' : 'annex of annex', qualified(a)),
  );
  if (urn.expression) {
    row(0, 'expression');
    row(1, 'version', versionItem(urn.expression.version.amendment));
    for (const e of urn.expression.version.events) row(2, 'event', versionItem(e));
    if (urn.expression.language) row(1, 'language', urn.expression.language.text);
  }
  if (urn.manifestation) {
    const m = urn.manifestation;
    row(0, 'manifestation');
    row(1, 'editor', qualified(m.editor));
    row(1, 'format', qualified(m.format));
    if (m.component) row(1, 'component', qualified(m.component));
    if (m.feature) row(1, 'feature', qualified(m.feature));
  }
  if (urn.partition) row(0, 'partition', urn.partition.text);
  if (urn.rComponent) row(0, 'r-component', urn.rComponent.text);
  if (urn.qComponent) row(0, 'q-component', urn.qComponent.text);
  if (urn.fComponent) row(0, 'f-component', urn.fComponent.text);
  return lines.join('\n') + '\n';
}

function oneArgument(positionals: readonly string[], what: string): string {
  if (positionals.length === 0) throw new UsageError(`missing ${what}`);
  if (positionals.length > 1)
    throw new UsageError(`expected one ${what}, got ${positionals.length}`);
  return positionals[0]!;
}

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) + '\n';
}

function runParse(argv: readonly string[], io: CliIo): number {
  const parsed = parseCommandArgs(argv, io, PARSE_HELP, OPTIONS);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  const text = oneArgument(positionals, 'URN');
  const r = parseLexUrn(text);
  if (values.json) {
    io.out(json(r.ok ? { ok: true, urn: r.value, warnings: r.warnings } : r));
    return r.ok ? EXIT_OK : exitCodeOfFailure(r.errors);
  }
  if (!r.ok) {
    for (const e of r.errors) io.err(formatDiagnostic(text, e));
    return exitCodeOfFailure(r.errors);
  }
  io.out(text + '\n' + renderTree(r.value));
  for (const w of r.warnings) io.err(formatDiagnostic(text, w));
  return EXIT_OK;
}

function runNormalize(argv: readonly string[], io: CliIo): number {
  const parsed = parseCommandArgs(argv, io, NORMALIZE_HELP, NORMALIZE_OPTIONS);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  const text = oneArgument(positionals, 'URN');
  const r = normalizeLexUrn(text);
  let reg: RegistryResult | undefined;
  if (r.ok && values.registry !== undefined) {
    const got = registryRewrites(io, r.canonical, values.registry);
    if (typeof got === 'number') return got;
    reg = got;
  }
  if (values.json) {
    const registry = reg
      ? { registry: { urn: reg.urn, rewrites: reg.rewrites, ambiguous: reg.ambiguous } }
      : {};
    io.out(json(r.ok ? { ...r, ...registry } : r));
    return r.ok ? EXIT_OK : exitCodeOfFailure(r.errors);
  }
  if (!r.ok) {
    for (const e of r.errors) io.err(formatDiagnostic(text, e));
    return exitCodeOfFailure(r.errors);
  }
  io.out((reg?.urn ?? r.canonical) + '\n');
  for (const c of r.changes) io.err(`changed at ${c.span.start + 1}: ${c.rule}: ${c.message}\n`);
  for (const w of reg?.rewrites ?? []) io.err(`registry: REGISTRY_REWRITE: ${w.message}\n`);
  for (const w of reg?.ambiguous ?? []) io.err(`registry: REGISTRY_AMBIGUOUS: ${w.message}\n`);
  return EXIT_OK;
}

function runKey(argv: readonly string[], io: CliIo): number {
  const parsed = parseCommandArgs(argv, io, KEY_HELP, OPTIONS);
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  const text = oneArgument(positionals, 'text');
  const r = toDnsKey(text);
  if (values.json) {
    // The same error shape as parse and normalize: errors[].
    io.out(json(r.ok ? { ok: true, value: r.value } : { ok: false, errors: [r.error] }));
    return r.ok ? EXIT_OK : exitCodeOf(r.error.code);
  }
  if (!r.ok) {
    io.err(formatDiagnostic(text, r.error));
    return exitCodeOf(r.error.code);
  }
  io.out(r.value + '\n');
  return EXIT_OK;
}

export const urnCommand: Command = {
  async run(argv, io) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case 'parse':
        return runParse(rest, io);
      case 'normalize':
      case 'normalise':
        return runNormalize(rest, io);
      case 'key':
        return runKey(rest, io);
      case '-h':
      case '--help':
      case 'help':
        io.out(MAIN_HELP);
        return EXIT_OK;
      case undefined:
        io.err(MAIN_HELP);
        return EXIT_USAGE;
      default:
        throw new UsageError(`unknown subcommand '${sub}' (parse, normalize, key)`);
    }
  },
};
