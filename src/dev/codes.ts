/**
 * Stable codes of `lexroute dev` (configuration and start; `DevStartError`
 * also reports the server's PORT_IN_USE, PORT_DENIED, ADDRESS_UNAVAILABLE).
 * Never renamed or reused.
 */
export const DEV_CODES = {
  DEV_CONFIG_NOT_OBJECT: 'the file (or a section) is not a JSON object',
  DEV_CONFIG_UNKNOWN_KEY: 'a key the dev configuration does not have',
  DEV_CONFIG_MISSING: 'a required key is missing',
  DEV_CONFIG_BAD_TYPE: 'a value of the wrong type, or an empty string or list',
  DEV_CONFIG_BAD_LISTEN: 'a listen address that is not ADDR:PORT',
  DEV_CONFIG_DUPLICATE: 'a name or zone origin used twice',
  DEV_ZONE_FAILED: 'a DNS server of the chain could not load or sign its zones',
  DEV_CATALOGUE_FAILED: 'the resolver of the chain could not open or seed its catalogue',
} as const;

export type DevCode = keyof typeof DEV_CODES;
