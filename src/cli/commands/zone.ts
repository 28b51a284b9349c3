/**
 * `lexroute zone check | print`: the same load path as the server
 * (`loadZoneFile`), plus the NAPTR lint and `; expect` directives.
 * Exit codes: 0 clean, 1 errors (or warnings with --strict), 2 usage.
 */
import { absoluteLowerName } from '../../kit/core/names.ts';
import { checkExpectations, lintNaptrRecords } from '../../ddds/core/lint/naptr-lint.ts';
import type { ZoneDiagnostic } from '../../dns/core/zone/model.ts';
import { printable } from '../../dns/core/zone/parser.ts';
import { writeZone } from '../../dns/core/zone/writer.ts';
import { isValidOrigin } from '../../dns/core/zone/parser.ts';
import {
  isDirectory,
  loadZoneFile,
  zoneFilesIn,
  ZONE_FILE_PATTERNS,
  type LoadOptions,
  type LoadResult,
} from '../../authority/zones/load.ts';
import { parseCommandArgs } from '../args.ts';
import { algorithmOf, generateKey, KeyError } from '../../dnssec/keys.ts';
import { signZoneFile } from '../../dnssec/sign.ts';
import { checkDenialChains } from '../../dnssec/core/chain-check.ts';
import { verifyZoneSignatures } from '../../dnssec/verify.ts';
import { EXIT_OK, EXIT_USAGE, UsageError, type CliIo, type Command } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';

const MAIN_HELP = `Usage: lexroute zone <subcommand> [options]

Check, print and sign RFC 1035 zone files (the files the routing server loads).

Subcommands:
  check <files or dirs...>  parse, validate and lint zone files
  print <file>              print a zone in canonical presentation form
  build <table>             write the zone a routing table (YAML/JSON) describes
  explain <files...>        print the routing table a zone's NAPTR rules implement
  sign <file> --keys DIR    sign a zone (DNSSEC) into a new file
  keygen <zone>             make DNSSEC keys (BIND's K*.key/.private files)
  diff <old> <new>          the IXFR-style difference of two versions of a zone

Options:
  -h, --help  show this help (also: lexroute zone <subcommand> --help)

Exit codes: 0 clean, 1 errors found, 2 usage error.
`;

const CHECK_HELP = `Usage: lexroute zone check <files or dirs...> [--json] [--strict] [--origin NAME]
                        [--include-dir DIR]... [--max-bytes N] [--max-entry-chars N]

Parse, validate and lint zone files exactly as the server loads them. A
directory means its *.zone, *.db and db.* files. The origin is --origin,
else the file name (<origin>.zone, <origin>.db, db.<origin>), else the first
$ORIGIN, else the SOA owner. Problems are printed as
  file:line:col: CODE message
followed by a summary.

Checks: RFC 1035 syntax (all errors of a file), one SOA and NS at the apex,
CNAME beside other data, DS at the apex, missing glue, name server and MX/SRV
targets that are aliases or have no address, TTL range, mixed TTLs,
duplicates, out-of-zone data (a warning: ignored, as BIND does), wildcards
that are not the leftmost label; in a signed zone (DNSKEY at the apex),
the RRSIGs of every authoritative RRset (missing, expired, not yet valid, no
such key, or not verifying: ZONE_RRSIG_*) and the NSEC or NSEC3 chain (a
record for every name that needs one, each pointing to the next, the last
to the first, type bitmaps that match, NSEC3 parameters as the NSEC3PARAM's:
ZONE_NSEC_*, ZONE_NSEC3_*, ZONE_NSEC3PARAM_MISSING, ZONE_DENIAL_MISSING);
NAPTR lint (REGEXP syntax on the client's own engine,
REGEXP xor REPLACEMENT, flags, SERVICES syntax, U output, anchoring,
jurisdiction boundaries [;:], unescaped dots, PREFERENCE used as ORDER);
and "; expect <urn> -> <result>" comment directives, which apply the NAPTR
records of the owner they follow to <urn>. <result> is the next key
(a domain name), "U <uri>", "S <name>", "A <name>", "P <text>" or "fail".

Options:
  --json         print the results as JSON
  --strict       warnings fail too (exit 1)
  --origin NAME  zone apex for every file given
  --include-dir DIR    a directory $INCLUDE may read besides the zone file's
                       own (repeatable; the server's zoneFiles.includeDirs)
  --max-bytes N        most octets read per zone, $INCLUDEs counted (default
                       1073741824; zoneFiles.maxBytes)
  --max-entry-chars N  longest entry in characters (default 1048576;
                       zoneFiles.maxEntryChars)
  -h, --help     show this help

Only regular files are read: a FIFO or a device is refused
(ZONE_NOT_REGULAR_FILE). On a terminal, a long load shows its progress on
standard error.

Exit codes: 0 clean (warnings allowed), 1 errors (or warnings with --strict), 2 usage error.
`;

const PRINT_HELP = `Usage: lexroute zone print <file> [--origin NAME]

Load a zone file and print it in canonical presentation form: the SOA
first, then names in DNSSEC canonical order, absolute names, one record per
line with its RRset TTL, RFC 3597 \\# form for types without a presentation
layout. Loading it again gives the same records.

Options:
  --origin NAME  zone apex (default: from the file name, $ORIGIN or SOA)
  -h, --help     show this help

Exit codes: 0 printed, 1 the zone has errors (printed on standard error), 2 usage error.
`;

function formatDiagnostic(d: ZoneDiagnostic, fallbackFile: string): string {
  const p = d.position;
  const where = p ? `${p.file}:${p.line}:${p.column}` : fallbackFile;
  // Zone data must not drive the terminal: control characters are shown escaped.
  return printable(
    `${where}: ${d.code} ${d.severity === 'warning' ? 'warning: ' : ''}${d.message}`,
  );
}

function positiveInt(flag: string, text: string): number {
  if (!/^[1-9][0-9]{0,14}$/.test(text)) throw new UsageError(`${flag} must be a positive integer`);
  return Number(text);
}

/**
 * Progress of a long load on a terminal (standard error, one line rewritten
 * in place, at most four times a second); nothing when it is not a terminal.
 */
function progressLine(file: string, io: CliIo) {
  if (!io.errIsTTY) return undefined;
  const started = performance.now();
  let last = started;
  let shown = false;
  return {
    update(read: number, size: number) {
      const now = performance.now();
      if (now - last < 250 || now - started < 500) return;
      last = now;
      shown = true;
      const pct = size > 0 ? Math.min(100, Math.floor((read * 100) / size)) : 100;
      const mib = (read / 1048576).toFixed(1);
      io.err(
        `\r${printable(file)}: reading ${mib} MiB (${pct}%), ${((now - started) / 1000).toFixed(1)} s\x1b[K`,
      );
    },
    done() {
      if (shown) io.err('\r\x1b[K');
    },
  };
}

/** Load and lint one file: load diagnostics, then NAPTR lint and expectations. */
async function checkFile(
  file: string,
  origin: string | undefined,
  io: CliIo,
  limits: LoadOptions,
): Promise<LoadResult & { all: ZoneDiagnostic[] }> {
  const progress = progressLine(file, io);
  const r = await loadZoneFile(file, {
    ...limits,
    ...(origin !== undefined ? { origin } : {}),
    signal: io.signal,
    ...(progress ? { onProgress: progress.update } : {}),
  });
  progress?.done();
  const all = inLineOrder([
    ...r.diagnostics,
    ...lintNaptrRecords(r.records),
    ...checkExpectations(r.expects, r.records),
    // A signed zone: every authoritative RRset has a valid, current RRSIG (as dnssec-verify).
    ...(r.zone ? verifyZoneSignatures(r.zone, Math.floor(Date.now() / 1000)) : []),
    // ... and a complete, closed NSEC or NSEC3 chain whose bitmaps match (as dnssec-verify).
    ...(r.zone ? checkDenialChains(r.zone) : []),
  ]);
  return { ...r, all };
}

/**
 * Diagnostics in the order of the text: by file (in order of first
 * appearance, so an $INCLUDE's findings stay together), then line and column;
 * those without a position (about the whole zone) come last. Stable.
 */
export function inLineOrder(ds: readonly ZoneDiagnostic[]): ZoneDiagnostic[] {
  const files = new Map<string, number>();
  for (const d of ds)
    if (d.position && !files.has(d.position.file)) files.set(d.position.file, files.size);
  const key = (d: ZoneDiagnostic): [number, number, number] =>
    d.position
      ? [files.get(d.position.file)!, d.position.line, d.position.column]
      : [Number.MAX_SAFE_INTEGER, 0, 0];
  return ds
    .map((d, i) => ({ d, i, k: key(d) }))
    .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.k[2] - b.k[2] || a.i - b.i)
    .map((x) => x.d);
}

/** A malformed --origin is a usage error (exit 2), not a finding about the file. */
function checkOriginOption(origin: string | undefined): void {
  if (origin !== undefined && !isValidOrigin(origin)) {
    throw new UsageError(`--origin ${JSON.stringify(origin)} is not a valid domain name`);
  }
}

async function check(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    json: { type: 'boolean' },
    strict: { type: 'boolean' },
    origin: { type: 'string' },
    'include-dir': { type: 'string', multiple: true },
    'max-bytes': { type: 'string' },
    'max-entry-chars': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(CHECK_HELP);
    return EXIT_OK;
  }
  const limits: LoadOptions = {
    ...(values['include-dir'] ? { includeDirs: values['include-dir'] } : {}),
    ...(values['max-bytes'] !== undefined
      ? { maxBytes: positiveInt('--max-bytes', values['max-bytes']) }
      : {}),
    ...(values['max-entry-chars'] !== undefined
      ? { maxEntryChars: positiveInt('--max-entry-chars', values['max-entry-chars']) }
      : {}),
  };
  if (positionals.length === 0)
    throw new UsageError('zone check needs at least one file or directory');
  checkOriginOption(values.origin);
  const files: string[] = [];
  for (const p of positionals) {
    if (isDirectory(p)) {
      const found = await zoneFilesIn(p);
      if (found.length === 0) throw new UsageError(`no zone files (${ZONE_FILE_PATTERNS}) in ${p}`);
      for (const f of found) files.push(f);
    } else files.push(p);
  }
  const results = [];
  for (const f of files) results.push(await checkFile(f, values.origin, io, limits));
  let errors = 0;
  let warnings = 0;
  let records = 0;
  for (const r of results) {
    records += r.records.length;
    for (const d of r.all) {
      if (d.severity === 'error') errors++;
      else warnings++;
    }
  }
  if (values.json) {
    io.out(
      JSON.stringify(
        {
          ok: errors === 0 && (!values.strict || warnings === 0),
          errors,
          warnings,
          files: results.map((r) => ({
            file: r.file,
            origin: r.origin ?? null,
            records: r.records.length,
            loaded: r.zone !== undefined,
            diagnostics: r.all,
          })),
        },
        null,
        2,
      ) + '\n',
    );
  } else {
    for (const r of results) for (const d of r.all) io.out(formatDiagnostic(d, r.file) + '\n');
    const loaded = results.filter((r) => r.zone !== undefined).length;
    io.out(
      `${files.length} file${files.length === 1 ? '' : 's'}, ${records} record${records === 1 ? '' : 's'}, ${loaded} zone${loaded === 1 ? '' : 's'} loaded: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`,
    );
  }
  const found = results.flatMap((r) => r.all);
  if (errors > 0) return exitCodeOfFailure(found.filter((d) => d.severity === 'error'));
  if (values.strict && warnings > 0) return exitCodeOfFailure(found);
  return EXIT_OK;
}

async function print(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    origin: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(PRINT_HELP);
    return EXIT_OK;
  }
  if (positionals.length !== 1) throw new UsageError('zone print takes exactly one file');
  checkOriginOption(values.origin);
  const file = positionals[0]!;
  const r = await loadZoneFile(file, values.origin !== undefined ? { origin: values.origin } : {});
  for (const d of r.diagnostics) io.err(formatDiagnostic(d, file) + '\n');
  if (!r.zone) return exitCodeOfFailure(r.diagnostics.filter((d) => d.severity === 'error'));
  io.out(writeZone(r.zone));
  return EXIT_OK;
}

const SIGN_HELP = `Usage: lexroute zone sign <file> --keys DIR [--nsec3] [--opt-out] [-o OUT]
                         [--origin NAME] [--validity DAYS] [--threads N]

Sign a zone with DNSSEC (RFC 4033-4035): the zone's keys are the
K<zone>+<alg>+<id>.private files (and their .key files) in DIR, made by
"lexroute zone keygen" or BIND's dnssec-keygen; algorithms 8 (RSASHA256),
13 (ECDSAP256SHA256) and 15 (ED25519). Keys with the SEP flag (257) sign
the DNSKEY RRset and the others everything else; a single kind of key (a
CSK) signs everything. Earlier RRSIG/NSEC/NSEC3 records are replaced.
Denial of existence is NSEC, or NSEC3 with --nsec3 (RFC 9276: SHA-1, no
salt, 0 extra iterations; --opt-out leaves insecure delegations out).
Signatures start an hour ago and end after --validity days (default 30),
less a random jitter of up to an eighth of it, so they do not all expire
together. The SOA serial is raised by one above the input's and the
previous output's. The output (default <file>.signed) loads in
"lexroute serve", BIND, Knot and NSD, and passes dnssec-verify. It is
written as it is signed, into a temporary file renamed at the end. The
signatures are made on --threads worker threads (default: one per core);
any number gives the same records.

Options:
  --keys DIR      folder of the zone's key files (required)
  --nsec3         NSEC3 instead of NSEC
  --opt-out       NSEC3 opt-out (with --nsec3)
  -o, --out FILE  output file (default: <file>.signed)
  --origin NAME   zone apex (default: from the file, as zone check)
  --validity DAYS signature validity (default 30)
  --threads N     signing threads (default: the cores available; 1 signs in
                  the main thread)
  -h, --help      show this help

Exit codes: 0 signed, 1 the zone or a key is invalid, 2 usage error.
`;

const KEYGEN_HELP = `Usage: lexroute zone keygen <zone> [--algorithm 13|15|8] [--csk] [--dir DIR]

Make DNSSEC keys for <zone> in BIND's format (K<zone>+<alg>+<id>.key with
the DNSKEY record, .private with the private key, mode 0600), usable by
"lexroute zone sign" and BIND's dnssec-signzone. By default a KSK (flags
257) and a ZSK (256); --csk makes one combined key (257). The KSK's DNSKEY
is the trust anchor (or gives the DS for the parent zone).

Options:
  --algorithm A  13 ECDSAP256SHA256 (default), 15 ED25519, 8 RSASHA256 (2048 bits)
  --csk          one combined signing key instead of a KSK and a ZSK
  --dir DIR      where to write the files (default: the current folder; made
                 when missing, mode 0700)
  -h, --help     show this help

Exit codes: 0 made, 1 failure (KEY_DIR_UNWRITABLE: the folder cannot be made
or written), 2 usage error.
`;

async function sign(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    keys: { type: 'string' },
    nsec3: { type: 'boolean' },
    'opt-out': { type: 'boolean' },
    out: { type: 'string', short: 'o' },
    origin: { type: 'string' },
    validity: { type: 'string' },
    threads: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(SIGN_HELP);
    return EXIT_OK;
  }
  if (positionals.length !== 1) throw new UsageError('zone sign takes exactly one zone file');
  if (values.keys === undefined) throw new UsageError('zone sign needs --keys DIR');
  if (values['opt-out'] && !values.nsec3) throw new UsageError('--opt-out needs --nsec3');
  const validity = values.validity === undefined ? 30 : Number(values.validity);
  if (!Number.isInteger(validity) || validity < 1 || validity > 3650)
    throw new UsageError('--validity takes a number of days from 1 to 3650');
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1 || threads > 256))
    throw new UsageError('--threads takes a number from 1 to 256');
  const file = positionals[0]!;
  try {
    const r = await signZoneFile(file, {
      keysDir: values.keys,
      out: values.out ?? `${file}.signed`,
      nsec3: values.nsec3 === true,
      optOut: values['opt-out'] === true,
      validityDays: validity,
      ...(threads !== undefined ? { threads } : {}),
      ...(values.origin !== undefined ? { origin: values.origin } : {}),
    });
    io.out(
      `${r.origin} signed (serial ${r.serial}, ${r.rrsets} RRsets, ${r.records} records) with ${r.keys.join(', ')} -> ${values.out ?? `${file}.signed`}\n`,
    );
    return EXIT_OK;
  } catch (e) {
    const code = (e as { code?: string }).code ?? 'SIGN_FAILED';
    io.err(`lexroute zone sign: ${code}: ${(e as Error).message}\n`);
    return exitCodeOf(code);
  }
}

async function keygen(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    algorithm: { type: 'string' },
    csk: { type: 'boolean' },
    dir: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.out(KEYGEN_HELP);
    return EXIT_OK;
  }
  if (positionals.length !== 1) throw new UsageError('zone keygen takes exactly one zone name');
  const alg = algorithmOf(values.algorithm ?? '13');
  if (alg === undefined)
    throw new UsageError(
      `--algorithm ${values.algorithm}: 13 (ECDSAP256SHA256), 15 (ED25519) or 8 (RSASHA256)`,
    );
  const raw = positionals[0]!;
  const origin = absoluteLowerName(raw);
  const dir = values.dir ?? '.';
  try {
    const made = [await generateKey(dir, origin, alg, true)];
    if (!values.csk) made.push(await generateKey(dir, origin, alg, false));
    for (const k of made) io.out(`${k.basename}\n`);
    return EXIT_OK;
  } catch (e) {
    if (!(e instanceof KeyError)) throw e;
    io.err(`lexroute zone keygen: ${e.code}: ${e.message}\n`);
    return exitCodeOf(e.code);
  }
}

export const zoneCommand: Command = {
  name: 'zone',
  summary:
    'check, print, build, explain, sign and diff zone files (check | print | build | explain | sign | keygen | diff)',
  async run(argv, io) {
    const [sub, ...rest] = argv;
    if (sub === undefined) {
      io.err(MAIN_HELP);
      return EXIT_USAGE;
    }
    if (sub === '-h' || sub === '--help' || sub === 'help') {
      io.out(MAIN_HELP);
      return EXIT_OK;
    }
    if (sub === 'check') return check(rest, io);
    if (sub === 'print') return print(rest, io);
    if (sub === 'build') return (await import('./zone-routes.ts')).zoneBuild(rest, io);
    if (sub === 'explain') return (await import('./zone-routes.ts')).zoneExplain(rest, io);
    if (sub === 'sign') return sign(rest, io);
    if (sub === 'keygen') return keygen(rest, io);
    if (sub === 'diff') return (await import('./zone-diff.ts')).zoneDiff(rest, io);
    throw new UsageError(
      `unknown subcommand '${sub}' (check | print | build | explain | sign | keygen | diff)`,
    );
  },
};
