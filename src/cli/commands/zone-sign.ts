/**
 * `lexroute zone sign` and `lexroute zone keygen`: DNSSEC signing of a zone
 * file, and BIND-format keys for it.
 */
import { absoluteLowerName } from '../../kit/core/names.ts';
import { algorithmOf, generateKey, KeyError } from '../../dnssec/keys.ts';
import { signZoneFile } from '../../dnssec/sign.ts';
import { parseCommandArgs } from '../args.ts';
import { EXIT_OK, UsageError, type CliIo } from '../io.ts';
import { exitCodeOf } from '../exit.ts';

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

export async function zoneSign(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, SIGN_HELP, {
    keys: { type: 'string' },
    nsec3: { type: 'boolean' },
    'opt-out': { type: 'boolean' },
    out: { type: 'string', short: 'o' },
    origin: { type: 'string' },
    validity: { type: 'string' },
    threads: { type: 'string' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
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

export async function zoneKeygen(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs(argv, io, KEYGEN_HELP, {
    algorithm: { type: 'string' },
    csk: { type: 'boolean' },
    dir: { type: 'string' },
  });
  if (parsed === undefined) return EXIT_OK;
  const { values, positionals } = parsed;
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
