/**
 * Stable codes of routing tables, `zone explain` and `chain check`; a YAML
 * syntax error is TABLE_YAML_ + the yaml package's code.
 */
export const ROUTE_CODES = {
  // Shape of the YAML document.
  TABLE_NOT_MAPPING: 'a value that must be a mapping (key: value) is not one',
  TABLE_NOT_LIST: 'SRV targets are not a list of mappings',
  TABLE_NOT_BOOLEAN: 'a value that must be true or false is not one',
  TABLE_NOT_STRING: 'a value that must be a string (or a list of strings) is not one',
  TABLE_UNKNOWN_KEY: 'a key the table format does not have at that place',
  TABLE_MISSING_KEY: 'a required key is missing (an ns name, an SRV target or port ...)',
  TABLE_KEY_NOT_HERE: 'a key that has no meaning for this kind of route',
  TABLE_BAD_NUMBER: 'a number out of its range',
  TABLE_BAD_NAME: 'not a domain name (LDH labels of 1 to 63; an IDN as its A-label)',
  TABLE_BAD_ADDRESS: 'not an IPv4 or IPv6 address',
  TABLE_BAD_URL: 'not an absolute URI template (ASCII URI characters, no fragment, no backslash)',
  TABLE_URL_NO_URN: 'a URL template without {urn}',
  TABLE_URL_NO_SERVICE: 'a URL template for several services without {service}',
  TABLE_BAD_HANDOFF: 'a handoff output that is not one word without spaces or backslashes',
  TABLE_BAD_PROTOCOL: 'a protocol that is not a letter then up to 31 letters or digits',
  TABLE_UNKNOWN_PROTOCOL: 'an S or A route speaking a protocol other than the THTTP ones',
  TABLE_NO_PROTOCOL: 'a handoff route without a protocol',
  TABLE_UNKNOWN_SERVICE: 'an unknown resolution service (RFC 2483)',
  TABLE_NO_SERVICES: 'an empty services list',
  TABLE_UNKNOWN_FLAG: 'a flag other than "" (delegation), U, S, A or P',
  TABLE_FLAG_MISMATCH: 'a flag that does not fit the kind of target',
  TABLE_NO_TARGET: 'a route without a target (zone, url, srv, host or handoff)',
  TABLE_SEVERAL_TARGETS: 'a route with more than one target',
  TABLE_NO_ROUTES: 'routes is missing or not a list',
  TABLE_NO_DEFAULT: 'no default: say what happens to every other URN (or default: none)',
  TABLE_BAD_DEFAULT: 'default is neither a target mapping nor none',
  TABLE_DEFAULT_PREFIX: 'the default route has a prefix',
  TABLE_NO_NS: 'the zone has no ns list',
  TABLE_NO_GLUE: 'a name server inside the zone without its address (glue)',
  TABLE_BAD_DS:
    "a ds entry that is not a DS record's data (key tag, algorithm, digest type, hex digest)",
  TABLE_DS_WITHOUT_NS: 'a route with ds but no ns: DS is written only at a zone cut',
  TABLE_CUT_NO_NS:
    "warning: a delegation to a zone below the table's without ns: no zone cut, so a secondary holding only this zone answers NXDOMAIN",
  TABLE_CUT_OUTSIDE:
    "a route with ns to a zone that is not below the table's zone (the cut belongs to that zone's parent)",
  TABLE_BAD_EXAMPLE: 'an example that is not a LEX URN',
  // Checks of the whole table (core/routes/validate.ts).
  TABLE_ROUTE_DUPLICATE: 'two routes with the same prefix',
  TABLE_ROUTE_SHADOWED: 'a route never reached: an earlier one takes every URN it takes',
  TABLE_EXAMPLE_ELSEWHERE: "a route's example is taken by another route, or by none",
  TABLE_ROUTE_LOOP: "a delegation to the table's own zone and owner (clients would loop)",
  // NAPTR rules (core/routes/build.ts).
  TABLE_FIELD_TOO_LONG: 'a NAPTR field of the rule is over 255 octets',
  TABLE_RRSET_TOO_LARGE:
    "the rules at the table's owner make a NAPTR answer larger than a DNS message holds (65,535 octets); sibling routes can be spread with index: true",
  TABLE_INDEX_NOT_SIBLINGS:
    'index: true on a table whose routes are not all one level below one jurisdiction',
  TABLE_UNREPRESENTABLE: 'the rule has no RFC 3402 substitution spelling',
  TABLE_UNREADABLE: 'lexroute zone build: the routing table file cannot be read',
  // Prefixes (core/routes/prefix.ts).
  ROUTE_PREFIX_EMPTY: 'the prefix is empty',
  ROUTE_PREFIX_PART: 'a prefix part (jurisdiction unit, authority, measure) is empty',
  ROUTE_PREFIX_SYNTAX: 'not a LEX prefix, or not in canonical form',
  // Explanation of a zone's rules (core/routes/explain.ts), warnings.
  ROUTE_NEVER_MATCHES: 'warning: a rule that matches no LEX URN',
  ROUTE_SHADOWED: 'warning: a rule never used: an earlier ORDER takes every URN it takes',
  ROUTE_DOUBLY_CLAIMED:
    'warning: two rules of the same ORDER with different targets take some of the same URNs',
  ROUTE_NO_TABLE_FORM:
    'lexroute zone explain --table: the rules have no routing-table form (not rules the table writes)',
  // The local chain check (routes/chain.ts).
  CHAIN_NO_ZONE: 'a name the chain reaches is in no zone of the folder',
  CHAIN_NO_CUT:
    'a zone of the folder below another one that has no NS for it: a server holding only the parent answers NXDOMAIN',
  LIST_UNREADABLE: 'lexroute chain check: the list of URNs cannot be read',
} as const;

export type RouteCode = keyof typeof ROUTE_CODES;

/** What a table diagnostic carries: a route code, or TABLE_YAML_ + a code of the yaml package. */
export type TableCode = RouteCode | `TABLE_YAML_${string}`;
