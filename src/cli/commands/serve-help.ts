/** The command line of `lexroute serve`: its options and its `--help` text. */

/** The options of `lexroute serve`. */
export const SERVE_OPTIONS = {
  zones: { type: 'string', multiple: true },
  listen: { type: 'string', multiple: true },
  config: { type: 'string' },
  watch: { type: 'boolean' },
  workers: { type: 'string' },
  'allow-empty': { type: 'boolean' },
  catalog: { type: 'string' },
  strict: { type: 'boolean' },
  doh: { type: 'string', multiple: true },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  rrl: { type: 'string' },
  metrics: { type: 'string' },
  control: { type: 'string' },
  'control-key': { type: 'string' },
  nsid: { type: 'string' },
  'cookie-secret': { type: 'string' },
  'no-cookies': { type: 'boolean' },
  'chaos-version': { type: 'string' },
  'chaos-id': { type: 'string' },
  'allow-transfer': { type: 'string', multiple: true },
  notify: { type: 'string', multiple: true },
  'notify-source': { type: 'string' },
  'state-dir': { type: 'string' },
  secondary: { type: 'string', multiple: true },
  'secondary-catalog': { type: 'string', multiple: true },
  serial: { type: 'string' },
  'tsig-keys': { type: 'string' },
  keys: { type: 'string' },
  nsec3: { type: 'boolean' },
  'opt-out': { type: 'boolean' },
  validity: { type: 'string' },
  'log-format': { type: 'string' },
  json: { type: 'boolean' },
  'log-level': { type: 'string' },
} as const;

export const SERVE_HELP = `Usage: lexroute serve [options]

Run the authoritative DNS server for LEX routing zones (UDP and TCP).

Options:
  --zones PATH         zone file, or directory of zone files: <origin>.zone,
                       <origin>.db, db.<origin> (repeatable; default: zones/);
                       ORIGIN=FILE names a file's origin (example.=routes.txt).
                       Otherwise the origin is the file name's, else the
                       file's first $ORIGIN, else its SOA owner (as zone check)
  --allow-empty        start even when no zone loads (else: exit 1)
  --catalog NAME       publish a catalog zone NAME (RFC 9432 version 2, as
                       catalog.invalid.) listing every primary zone served,
                       for Knot (catalog-role: interpret) and BIND
                       (catalog-zones) secondaries to provision themselves;
                       transferred and NOTIFYd as any zone, its serial raised
                       when the set changes (ctl zone add/remove, reload)
  --strict             warnings refuse a zone too, as in zone check --strict
                       (zoneFiles.strict)
  --listen ADDR:PORT   address to serve on, UDP and TCP (repeatable;
                       default: 127.0.0.1:5353; IPv6 as [::1]:5353)
  --config FILE        JSON configuration (see config/server.json); options
                       given here override it
  --watch              reload zone files when they change
  --workers N          answering threads on the same ports (SO_REUSEPORT,
                       Linux), sharing one copy of the zones; a reload loads
                       once and swaps in every one; 0: one per core
                       (default: 1; config/production.json: 0)
  --doh ADDR:PORT      also serve DNS over HTTPS (RFC 8484) at /dns-query,
                       HTTP/1.1 and HTTP/2 (repeatable); needs --tls-cert and
                       --tls-key except on loopback addresses (plain HTTP)
  --tls-cert FILE      PEM certificate (chain) for --doh
  --tls-key FILE       PEM private key for --doh
  --metrics ADDR:PORT  serve Prometheus metrics at http://ADDR:PORT/metrics
                       (queries by transport, type, rcode and zone, response
                       sizes, TCP connections, RRL actions, zone serials and
                       reloads)
  --control PATH       control channel for lexroute ctl (Unix socket, mode 0600):
                       status, reload [ZONE], zone-status ZONE,
                       retransfer ZONE [--force], stats, stop; or
                       ADDR:PORT on a loopback address (TCP), with
                       --control-key
  --control-key FILE   the key a TCP control port checks every request
                       against (make it with lexroute ctl keygen FILE)
  --rrl RATE           response-rate limiting on UDP: at most RATE identical
                       responses per second per client /24 (IPv6 /56), slip 2,
                       window 15 s (the config's rrl block sets the rest;
                       off by default, as in BIND and Knot)
  --allow-transfer PREFIX
                       let these addresses transfer every zone by AXFR and
                       IXFR (RFC 5936, RFC 1995), e.g. 127.0.0.1/32 or
                       192.0.2.0/24, or 'key NAME' to require a TSIG key
                       (repeatable; default: no transfers, every AXFR/IXFR
                       is REFUSED)
  --notify ADDR:PORT   send NOTIFY (RFC 1996) to this secondary when a reload
                       raises a zone's serial, and at start, for every zone;
                       retried with a doubling timeout, each answer logged
                       (a REFUSED or no answer at warn) (repeatable)
  --notify ZONE=ADDR:PORT
                       the same for ZONE only: a secondary that holds some
                       of the zones is notified of those (repeatable; one
                       address may be given for several zones)
  --notify-source ADDR send NOTIFYs from this address (the secondaries'
                       allow-notify lists it; default: the --listen address
                       of the peer's family, the kernel's choice for a
                       wildcard; config transfer.notifySource)
  --state-dir DIR      keep each zone's IXFR history in DIR (one journal file
                       per zone), the serial served for each content (with
                       --keys the signed version too: a restart with the
                       same files serves the same serial and signatures, a
                       change goes past every serial served; no full
                       transfer forced, no serial stepped back), and the
                       secondary zones' transferred copies
  --secondary ZONE=ADDR:PORT[,key NAME]
                       serve ZONE as a secondary of the primary at ADDR:PORT
                       (repeatable; several primaries of one zone are tried
                       in order): AXFR at start, then an SOA check at the
                       SOA refresh interval (retry after a failure) and on
                       NOTIFY from that address, IXFR when the serial is
                       newer (AXFR when IXFR fails); past the SOA expire the
                       zone gets SERVFAIL. With key NAME (from --tsig-keys)
                       requests are signed and every answer message checked,
                       and a NOTIFY must carry that key. Needs --state-dir:
                       the zone is kept in DIR/secondary/ZONE.zone, served
                       at once on restart. Without --zones, only secondary
                       zones are served
  --secondary-catalog CATALOG=ADDR:PORT[,key NAME]
                       consume the catalog zone CATALOG (RFC 9432 version 2)
                       of the primary at ADDR:PORT (repeatable, as
                       --secondary): the catalog is a secondary zone, and
                       every member zone it lists (ID.zones.CATALOG PTR) is
                       served as a secondary zone of the same primaries and
                       key; a member added to the catalog is transferred, a
                       member removed stops being served (its copy deleted).
                       The group and coo properties are ignored. A catalog
                       whose version is not "2" is not applied (the members
                       stay; CATALOG_ codes in the log). Needs --state-dir
  --serial POLICY      keep | auto | date | increment: when a reload's content
                       changed but its SOA serial did not go up, keep reports
                       it (zone_serial_unchanged, the default); auto or date
                       raises it to YYYYMMDDnn (or +1 when that is not ahead),
                       increment by one (zone_serial_raised). The raised
                       serial is what SOA, AXFR, IXFR and NOTIFY carry; the
                       file is not rewritten (zones entries may set their own)
  --tsig-keys FILE     TSIG keys (RFC 8945) in BIND's format (key "name" {
                       algorithm hmac-sha256; secret "..."; };); with
                       --allow-transfer 'key NAME' a transfer must be signed
                       with that key (and come from a listed prefix, if any);
                       answers and NOTIFYs are signed with it
  --nsid TEXT          answer NSID requests (RFC 5001) with TEXT (default: none)
  --cookie-secret HEX  DNS cookie secret, 32 hex digits, the same on every
                       server of an anycast set (RFC 9018; default: random
                       at each start)
  --no-cookies         ignore DNS cookies (RFC 7873; default: answered)
  --chaos-version TEXT answer CH TXT version.bind and version.server
  --chaos-id TEXT      answer CH TXT id.server and hostname.bind
                       (without these two, CH queries are REFUSED)
  --keys DIR           sign inline (DNSSEC): every zone with keys in DIR
                       (K<zone>+<alg>+<tag>.private, from lexroute zone keygen
                       or dnssec-keygen) is signed at load and at each reload,
                       and signed again before its signatures expire; a zone
                       without keys there is served as its file has it
  --nsec3              with --keys: NSEC3 (RFC 9276: no salt, 0 iterations)
                       instead of NSEC
  --opt-out            with --nsec3: NSEC3 opt-out
  --validity DAYS      with --keys: signature validity (default 30); signed
                       again a quarter of it before the earliest expiration
  --log-format FORMAT  json | pretty (default: pretty on a terminal, else json)
  --json               the same as --log-format json: the start-up report
                       (zone_loaded, listening, ready) and every later event
                       as JSON lines on standard error
  --log-level LEVEL    debug | info | warn | error | silent (default: info)
  -h, --help           show this help

Every zone takes the path of lexroute zone check: what it reports as an
error (the NAPTR lint and "; expect" directives included) refuses the zone
(zone_rejected, with the first error's code, line and message; at start the
zone is not served, at a reload its previous version stays); warnings are
logged (zone_diagnostic) and the zone is served. SIGHUP reloads the zones. A reload that changes a zone whose serial went up (RFC 1982)
records the difference for IXFR (the config's transfer block bounds the
history by count and octets) and notifies the secondaries; a changed zone
whose serial did not go up is reported (zone_serial_unchanged), or raised
with --serial. Zone files are read, parsed, validated and compared with the
version served (the IXFR difference) in a worker thread while
the current zones keep answering; a file whose size and mtime, or whose
content hash, did not change is not parsed again. With --keys, signing
happens in that worker too, and a zone whose signing fails keeps its
previous version (zone_diagnostic with the code, then zone_rejected).
SIGTERM or SIGINT shuts down cleanly.

Exit codes: 0 stopped cleanly, 1 could not start (the start_failed line names
a code: PORT_IN_USE, PORT_DENIED, ADDRESS_UNAVAILABLE, SERVER_NO_ZONES,
DNSSEC_KEYS_DIR, CONFIG_..., or CONTROL_KEY_INVALID), 2 usage error
(CONTROL_NOT_LOOPBACK, CONTROL_KEY_REQUIRED among them).
`;
