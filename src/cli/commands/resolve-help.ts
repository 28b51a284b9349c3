/** The help text of `lexroute resolve`. */

export const HELP = `Usage: lexroute resolve <urn> [options]
       lexroute resolve --batch <file|-> [--concurrency N] [options]

Resolve a LEX URN (RFC 9676) through the DNS: NAPTR rules from lex.urn.arpa.
down to the jurisdiction's resolver (RFC 3402/3403/3404, Punycode keys), then
the THTTP request (RFC 2169) that gives the document URL(s).

Options:
  --service S         N2L (default: one URL), N2Ls (list), N2C (description)
  --server HOST:PORT  DNS server to ask (repeatable; default: /etc/resolv.conf)
  --root HOST:PORT    iterative mode: start at this server and follow
                      referrals; every referred server is asked on this port
  --doh URL           DNS over HTTPS (RFC 8484): ask this DoH server
                      (repeatable, tried in turn; e.g.
                      https://dns.example/dns-query); stub mode; HTTP/2
                      or HTTP/1.1, whichever the server speaks
  --doh-post          send DoH queries with POST (default GET, cacheable)
  --no-http           stop at the resolver URL (no HTTP request)
  --trace             print every step: key, server, records with their fate
                      and reason, rewrite, Punycode, SRV/A, HTTP exchange
  --json              print the result (and the trace with --trace) as JSON
  --timeout MS        DNS timeout per try and HTTP timeout (default 2000/10000)
  --deadline MS       the whole resolution's deadline, lookups and HTTP step
                      included (default 8000; 0: none): past it, RESOLVE_DEADLINE
  --url-schemes LIST  URL schemes accepted in a resolver's answer, comma-
                      separated (default http,https): else DDDS_URL_SCHEME
  --max-steps N       most DDDS steps (default 10)
  --fallback          after a failure below a delegation, try the referring
                      rule set's next rule (off: RFC 3403 section 8 reports)
  --dnssec            trust the resolver's AD bit: DO on every query and AD
                      from the --server (a validating resolver) required on
                      every NAPTR, SRV and address lookup; else
                      DNSSEC_INSECURE (no AD) or DNSSEC_BOGUS (validation
                      failed); --trace shows secure/insecure/bogus per step.
                      No signature is checked here. Not with --root
  --validate          validate DNSSEC here, in every mode (--server, --root,
                      --doh): DO and CD on every query, the chain of trust
                      from the trust anchors to each NAPTR, SRV and address
                      RRset checked by lexroute itself. Each step's verdict
                      (secure, insecure with its proof, bogus with its
                      reason) is in --trace and --json; a bogus step fails
                      with DNSSEC_BOGUS. Not with --dnssec
  --trust-anchor FILE with --validate: trust anchors besides the built-in root
                      keys (KSK-2017 id 20326, KSK-2024 id 38696): DS or
                      DNSKEY records (as \`dev --dnssec\` writes
                      trust-anchor.key), a BIND trust-anchors file, or IANA's
                      root-anchors.xml (repeatable)
  --no-root-anchors   with --validate: leave the built-in root keys out, so
                      only the --trust-anchor files count (a private chain
                      that must not validate through the public root)
  --require-secure    with --validate: fail (DNSSEC_INSECURE) unless every
                      step is secure
  --batch FILE|-      resolve one URN per line (# comments), one JSON line
                      per URN in input order; a progress bar on a terminal
  --concurrency N     batch: resolutions in flight (default 8)
  -h, --help          show this help

A NAPTR rule with flag P ends the DDDS chain (RFC 3404 section 4.3: "the
remainder of the DDDS Algorithm is ignored"): the rest belongs to the protocol
named in its SERVICES. That is a result, not an error: the rule's output goes
to stdout, the protocol and the rule to stderr, exit code 3; --json prints
{"ok": true, "kind": "handoff", "handoff": {key, step, protocol, services,
output, via, record}}. Resolved results have "kind": "resolved".

Exit codes: 0 resolved (batch: all), 1 failed (batch: any), 2 usage error,
3 handed off by a P rule (batch: none failed, at least one handed off).
Error codes: DNS_NXDOMAIN/DNS_NODATA (not found, naming the key), DNS_TIMEOUT,
DNS_SERVFAIL, DNS_REFUSED, DNS_BAD_RESPONSE, DNS_LAME, DDDS_NO_VALID_OUTPUT,
DDDS_LOOP, DDDS_STEP_LIMIT, DDDS_URL_SCHEME, RESOLVE_DEADLINE, HTTP_NOT_FOUND,
HTTP_SERVER_ERROR, HTTP_TIMEOUT, ...
`;
