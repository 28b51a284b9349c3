/**
 * Stable codes of the DDDS client's failures (DNS_, HTTP_, DNSSEC_, the
 * resolution's own), here in the core because the walk reports them. Never
 * renamed or reused.
 */
export const CLIENT_CODES = {
  // Which servers to ask.
  DNS_NO_SERVERS: 'no DNS server (or DoH URL) to ask: none given and none in /etc/resolv.conf',
  BAD_SERVER_ADDRESS: 'a --server value that is not an IP literal with an optional port 1-65535',
  DNS_BAD_DOH_URL: 'a DoH URL that is not an absolute http(s) URL',
  // Transport.
  DNS_TIMEOUT: 'no answer within the timeout (after the retries)',
  DNS_NETWORK: 'the query could not be sent, or the connection failed',
  DNS_ABORTED: 'the query was aborted by the caller (AbortSignal)',
  DNS_BAD_RESPONSE: 'the answer is not a well-formed DNS response to the query',
  DNS_MESSAGE_TOO_LARGE: 'an answer over the size the client accepts',
  DNS_RRSET_TOO_LARGE: 'an RRset with more records than the client accepts',
  DNS_DOH_STATUS: 'the DoH server answered an HTTP status other than 200',
  // Response codes.
  DNS_NXDOMAIN: 'the name does not exist',
  DNS_NODATA: 'the name exists but has no records of the type asked',
  DNS_SERVFAIL: 'the server answered SERVFAIL',
  DNS_REFUSED: 'the server refused the query (not authoritative, or no recursion for us)',
  DNS_NOTIMP: 'the server does not implement the query',
  DNS_FORMERR: 'the server could not parse the query',
  DNS_RCODE: 'the server answered another error rcode',
  // Resolution (stub and iterative).
  DNS_REFERRAL: 'a non-recursive server referred the query elsewhere (ask that zone, or recurse)',
  DNS_LAME: 'lame delegation: the servers of a zone do not serve it',
  DNS_REFERRAL_LOOP: 'a referral back to a zone already visited',
  DNS_DEPTH_EXCEEDED: 'more referrals or queries than the iterative resolver allows',
  DNS_CNAME_LOOP: 'a CNAME loop, or a CNAME chain over the limit',
  // DNSSEC.
  DNSSEC_BOGUS: 'validation failed (bad or expired signature, broken chain of trust)',
  DNSSEC_INSECURE: 'DNSSEC was required but the answer is not authenticated (no AD)',
  DNSSEC_NEEDS_RESOLVER: 'DNSSEC was required without a validating resolver to ask (--server)',
  CLIENT_NO_TRANSPORT:
    'no DNS transport on this platform: give a transport (dohTransport) or DoH URLs',
  DNSSEC_TRUST_ANCHOR:
    'resolve --trust-anchor: the file cannot be read or holds no DS or DNSKEY trust anchor',
  // THTTP (RFC 2169) steps.
  HTTP_BAD_URL: 'a resolver URL with an invalid host, port or path characters',
  HTTP_UNSUPPORTED_SCHEME: 'a resolver URL that is not absolute http or https',
  HTTP_NETWORK: 'the resolver cannot be reached',
  HTTP_TIMEOUT: 'no complete answer from the resolver within the timeout',
  HTTP_NOT_FOUND: 'the resolver does not know the URN (404)',
  HTTP_CLIENT_ERROR: 'the resolver answered another 4xx status',
  HTTP_SERVER_ERROR: 'the resolver failed with a 5xx status',
  HTTP_UNEXPECTED_STATUS: 'a status the service does not expect (e.g. N2L without a redirect)',
  HTTP_NO_LOCATION: 'a redirect without a Location header',
  HTTP_BAD_LOCATION: 'a redirect with an invalid Location',
  HTTP_REDIRECT_LIMIT: 'more redirects than allowed',
  HTTP_BAD_CONTENT_TYPE: 'N2Ls answered something other than text/uri-list',
  HTTP_EMPTY_LIST: 'N2Ls answered an empty URL list',
  HTTP_BODY_TOO_LARGE: 'a response body over the size the client accepts',
  HTTP_OPAQUE_REDIRECT:
    'browser client: the resolver redirects and a page cannot read where to (ask N2Ls)',
  // The whole resolution.
  RESOLVE_DEADLINE: "the resolution's overall deadline passed",
  INTERNAL: 'an unexpected failure inside the client (a bug, not bad input or a network failure)',
} as const;

export type ClientCode = keyof typeof CLIENT_CODES;
