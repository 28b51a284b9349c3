/** The help texts of `lexroute zone`, `zone check` and `zone print`. */
export const MAIN_HELP = `Usage: lexroute zone <subcommand> [options]

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

export const CHECK_HELP = `Usage: lexroute zone check <files or dirs...> [--json] [--strict] [--origin NAME]
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

export const PRINT_HELP = `Usage: lexroute zone print <file> [--origin NAME]

Load a zone file and print it in canonical presentation form: the SOA
first, then names in DNSSEC canonical order, absolute names, one record per
line with its RRset TTL, RFC 3597 \\# form for types without a presentation
layout. Loading it again gives the same records.

Options:
  --origin NAME  zone apex (default: from the file name, $ORIGIN or SOA)
  -h, --help     show this help

Exit codes: 0 printed, 1 the zone has errors (printed on standard error), 2 usage error.
`;
