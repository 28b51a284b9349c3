/** Stable codes of the configuration files (reading: load.ts; keys: server.ts, resolver.ts). */
export const CONFIG_CODES = {
  CONFIG_UNREADABLE: 'the configuration file cannot be read',
  CONFIG_BAD_JSON: 'the configuration file is not valid JSON',
  CONFIG_NOT_OBJECT: 'the file, or a section of it, is not a JSON object',
  CONFIG_UNKNOWN_KEY: 'a key the configuration does not have (the message lists the known ones)',
  CONFIG_BAD_TYPE: 'a value of the wrong JSON type',
  CONFIG_BAD_VALUE: 'a string value that is empty or holds line breaks',
  CONFIG_BAD_BOOLEAN: 'a value that must be true or false',
  CONFIG_BAD_NUMBER: 'an integer out of its range',
  CONFIG_BAD_TEXT: 'a text that is too long or holds control characters',
  CONFIG_BAD_ENUM: 'a value that is not one of the allowed words (log.level, log.format)',
  CONFIG_BAD_PATH: 'a value that must be a file path',
  CONFIG_BAD_LISTEN: 'listen is not a non-empty list of "ADDR:PORT"',
  CONFIG_BAD_ZONES:
    'zones (or zoneFiles.includeDirs, secondaryCatalogs) is not a list of paths, {file, origin} or {origin, primaries}',
  CONFIG_BAD_PREFIX: 'rrl.exempt is not a list of addresses or ADDR/BITS prefixes',
  CONFIG_BAD_COOKIE_SECRET: 'cookies.secret is not null or 32 hexadecimal digits (RFC 9018)',
  CONFIG_DOH_TLS_PAIR: 'only one of doh.tlsCert and doh.tlsKey is given',
  CONFIG_DNSSEC_OPT_OUT: 'dnssec.optOut without dnssec.nsec3',
  CONFIG_DNSSEC_REFRESH: 'dnssec.refresh is not shorter than dnssec.validity minus its jitter',
  CONFIG_BAD_TSIG_KEY: 'tsigKeys is not a list of key files, or a key entry is malformed',
} as const;
