/**
 * `lexroute zone diff OLD NEW`: the difference between two versions of a
 * zone as IXFR would send it (RFC 1995 section 4): the old SOA, the records
 * deleted, the new SOA, the records added; a warning when the serial does
 * not go up (RFC 1982), since secondaries would then not transfer the change.
 */
import { open } from 'node:fs/promises';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, UsageError, type CliIo } from '../io.ts';
import { exitCodeOf, exitCodeOfFailure } from '../exit.ts';
import { loadZoneFile } from '../../authority/zones/load.ts';
import { diffZones } from '../../xfr/core/diff.ts';
import { type PlainRecord } from '../../xfr/core/records.ts';
import { soaSerialOf } from '../../dns/core/rr/soa.ts';
import { serialCompare } from '../../xfr/core/serial.ts';
import { rrToPresentation } from '../../dns/core/zone/writer.ts';
import { keyToName } from '../../dns/core/wire/name.ts';
import { sameBytes } from '../../kit/core/bytes.ts';

export const DIFF_HELP = `Usage: lexroute zone diff <old file> <new file> [--origin NAME]

Print what changed between two versions of a zone, in the order an IXFR
(RFC 1995) carries it: the old SOA and the records deleted, then the new SOA
and the records added, one record per line in presentation form. Useful
before publishing: it is what the secondaries will receive. A warning goes
to standard error when the new serial is not greater than the old one
(RFC 1982 serial arithmetic): secondaries would not transfer the change.

Options:
  --origin NAME  the zone's origin (default: each file's own leading $ORIGIN,
                 else its file name <origin>.zone, else its content)
  -h, --help     show this help

Exit codes: 0 the difference was printed (possibly empty), 1 a file did not
load, 2 usage error.
`;

function line(r: PlainRecord): string {
  return rrToPresentation({
    owner: keyToName(r.key),
    type: r.type,
    class: 1,
    ttl: r.ttl,
    rdata: r.rdata,
  });
}

export async function zoneDiff(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, DIFF_HELP, {
    origin: { type: 'string' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
  if (positionals.length !== 2) throw new UsageError('zone diff takes two files: OLD NEW');
  const zones = [];
  for (const file of positionals) {
    // The file's own $ORIGIN wins over its name (pt.old.zone is not the zone pt.old.).
    const origin = values.origin ?? (await leadingOrigin(file));
    const r = await loadZoneFile(file, origin !== undefined ? { origin } : {});
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    for (const d of errors) {
      const at = d.position
        ? `${d.position.file}:${d.position.line}:${d.position.column}: `
        : `${file}: `;
      io.err(`${at}${d.code}: ${d.message}\n`);
    }
    if (!r.zone || errors.length > 0) return exitCodeOfFailure(errors);
    zones.push(r.zone);
  }
  const [before, after] = zones as [(typeof zones)[0], (typeof zones)[0]];
  if (before.origin !== after.origin) {
    const code = 'ZONE_DIFF_ORIGINS';
    io.err(
      `lexroute zone diff: ${code}: ${before.origin} and ${after.origin} are different zones\n`,
    );
    return exitCodeOf(code);
  }
  const d = diffZones(before, after);
  const from = soaSerialOf(d.fromSoa.rdata);
  const to = soaSerialOf(d.toSoa.rdata);
  const changed =
    d.removed.length + d.added.length > 0 || !sameBytes(d.fromSoa.rdata, d.toSoa.rdata);
  if (changed && !(serialCompare(to, from) > 0)) {
    io.err(
      `lexroute zone diff: warning: ZONE_SERIAL_NOT_RAISED: the serial goes from ${from} to ${to}; secondaries will not transfer this change\n`,
    );
  }
  const out = [
    `; ${after.origin} serial ${from} -> ${to}: ${d.removed.length} deleted, ${d.added.length} added`,
    '; deleted',
    line(d.fromSoa),
    ...d.removed.map(line),
    '; added',
    line(d.toSoa),
    ...d.added.map(line),
  ];
  io.out(`${out.join('\n')}\n`);
  return EXIT_OK;
}

/** The `$ORIGIN` before any record in the file's first 64 KiB; undefined when none (or unreadable). */
export async function leadingOrigin(file: string): Promise<string | undefined> {
  let head: string;
  try {
    const fh = await open(file);
    try {
      const buf = Buffer.alloc(65536);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      head = buf.toString('utf8', 0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch {
    return undefined;
  }
  for (const raw of head.split('\n')) {
    const text = raw.replace(/;.*$/, '').trim();
    if (text === '' || /^\$TTL\s/i.test(text)) continue;
    const m = /^\$ORIGIN\s+(\S+)$/i.exec(text);
    return m && m[1]!.endsWith('.') ? m[1] : undefined;
  }
  return undefined;
}
