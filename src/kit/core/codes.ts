/**
 * Stable codes of the core kit: `parseHostPort` (`host-port.ts`), the one
 * parser of `host:port` text. The callers report their own code
 * (`CONFIG_BAD_LISTEN`, `BAD_SERVER_ADDRESS`, ...) with this one as the cause.
 *
 * Codes are never renamed or reused. test/codes.test.ts checks that every code
 * used in src is in exactly one table; docs/codes.md is generated (npm run codes).
 */

/** Why a `host:port` text was refused. */
export const HOST_PORT_CODES = {
  HOST_PORT_BAD_IPV6: 'the text in [brackets] is not an IPv6 address',
  HOST_PORT_SYNTAX: 'not ADDR:PORT: several colons outside brackets (IPv6 is written [ADDR]:PORT)',
  HOST_PORT_MISSING_PORT: 'no :PORT, and the caller has no default port',
  HOST_PORT_BAD_HOST:
    'the host is not an IP literal or localhost (names are not resolved: a listen address is bound, a DNS server cannot be found by name)',
  HOST_PORT_BAD_PORT: 'the port is not a decimal number from 0 to 65535',
} as const;

export type HostPortCode = keyof typeof HOST_PORT_CODES;
