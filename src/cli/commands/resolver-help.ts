/** The help text of `lexroute resolver`. */
export const RESOLVER_HELP = `Usage: lexroute resolver [options]

Run the jurisdiction resolver: an HTTP service (THTTP, RFC 2169) that resolves
LEX URNs to document URLs from a catalogue (RFC 9676 section 10.3).

Options:
  --listen ADDR:PORT  address to listen on (repeatable; default 127.0.0.1:8080;
                      IPv6 as [::1]:8080)
  --catalogue LOC     the catalogue: a SQLite file (default data/catalogue.sqlite)
                      or postgres://user@host:port/db; it must exist (lexroute
                      catalogue import creates it)
  --sample            serve the sample rows (data/sample-catalogue.jsonl) from a
                      fresh catalogue in a temporary folder, removed on exit
  --workers N         N resolver processes sharing the port and the catalogue
                      (0: one per core; default 1, config "workers")
  --metrics ADDR:PORT Prometheus metrics at http://ADDR:PORT/metrics: requests
                      by service and status, latency histogram, answer-cache
                      hits, catalogue size, when an import was last seen
                      (summed over the workers)
  --control PATH      control channel for lexroute ctl (Unix socket, mode 0600):
                      status, stats, reload (the configuration file and
                      registries), flush-cache, stop; with --workers, the
                      primary forwards each command to every worker. Or
                      ADDR:PORT on a loopback address (TCP) with --control-key
  --control-key FILE  the key a TCP control port checks every request against
                      (make it with lexroute ctl keygen FILE)
  --registry DIR      LexML vocabularies (localidade.csv, autoridade.csv,
                      tipoDocumento.csv): acronyms and alternative labels are
                      rewritten to their codes before matching where
                      unambiguous, each rewrite reported (REGISTRY_REWRITE).
                      Default: the registries stored in the catalogue
                      (lexroute catalogue registry DIR), read at start
  --page-doh URL      the DNS over HTTPS URL the resolution page at / fills in
                      (http:// or https://, e.g. https://dns.example/dns-query;
                      config "page.doh"; default: empty, the person types one)
  --config FILE       JSON configuration (default: config/resolver.json when
                      present); --listen, --catalogue, --workers, --registry
                      and --page-doh override it
  -h, --help          show this help

Exit codes: 0 stopped cleanly, 1 failure (CATALOGUE_MISSING, CATALOGUE_OPEN,
CATALOGUE_SCHEMA, configuration errors, PORT_IN_USE, CONTROL_SOCKET_IN_USE,
CONTROL_KEY_INVALID), 2 usage error (CONTROL_NOT_LOOPBACK,
CONTROL_KEY_REQUIRED).

lexroute ctl --control PATH reload re-reads the configuration file and the
registries and applies what can change while running (cache, matching,
cacheControl, cors, page, registry; the answer cache starts empty); listen,
catalogue, workers and log need a restart and are reported as such. A
configuration that does not validate is refused (RESOLVER_RELOAD_FAILED) and
the previous one keeps serving.

Logs are JSON lines {"time", "level", "event", ...} as for serve and dev
(readable lines on a terminal).

Routes:
  GET /uri-res/N2L?<urn>   303 (302 for HTTP/1.0) to the best URL
  GET /uri-res/N2Ls?<urn>  all URLs: text/uri-list, or JSON with Accept: application/json
  GET /uri-res/N2C?<urn>   the catalogue description (JSON)
  GET /uri-res/N2Ns?<urn>  the work's names (text/uri-list)
  GET /<urn>               same as N2L
  GET /health
Append ?=at=YYYY-MM-DD to the URN for the version in force on that day.
Errors are application/problem+json with a stable "code"; 300 lists the
candidates of an ambiguous URN. One JSON log line per request on standard
error (request lines are written in batches, at most 50 ms late). Answers are kept in memory (config "cache"): by default an answer is
kept from the second request for it on, so a stream of one-off URNs does not
churn the cache. A catalogue import by another process shows within about a
second (a SQLite file: the cache checks it every cache.checkMs; PostgreSQL:
the import's NOTIFY, or a poll every 0.5 s), and the answer cache is emptied
then. With log.sample N > 1 one request in N is logged and a 'requests' line
counts the others. SIGINT/SIGTERM stop it (and its workers) cleanly.
`;
