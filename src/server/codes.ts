/**
 * Stable codes of the authoritative server's start-up (`ServerStartError`,
 * shared by `lexroute dev`) and of its control socket (`lexroute ctl`). The
 * zone codes (ZONE_RELOAD_FAILED ...) are in core/zone/codes.ts, DoH's in
 * core/wire/codes.ts.
 *
 * Codes are never renamed or reused. test/codes.test.ts checks that every code
 * used in src is in exactly one table; docs/codes.md is generated (npm run codes).
 */
export const SERVER_CODES = {
  // Start-up.
  PORT_IN_USE: 'the address and port are already in use (EADDRINUSE)',
  PORT_DENIED: 'no permission to listen there, e.g. a port below 1024 (EACCES)',
  ADDRESS_UNAVAILABLE: 'no interface has the address (EADDRNOTAVAIL)',
  LISTEN_FAILED: 'listening failed for another reason',
  SERVER_NO_ZONES: 'no zone loaded (start anyway with --allow-empty)',
  // Control socket.
  CONTROL_SOCKET_IN_USE: 'another process listens on the control socket',
  CTL_UNREACHABLE: 'lexroute ctl cannot connect to the control socket',
  CTL_TIMEOUT: 'no answer from the control socket in time',
  CTL_BAD_ANSWER: 'the control socket answered something that is not a control answer',
  CTL_BAD_REQUEST: 'a control request that is too long or not a JSON line',
  CTL_USAGE: 'a control command without an argument it needs',
  CTL_UNKNOWN_COMMAND: 'an unknown control command',
  CTL_UNKNOWN_ZONE: 'a control command for a zone that is not configured or not served',
  CTL_RELOAD_FAILED: 'the reload command failed as a whole',
} as const;

export type ServerCode = keyof typeof SERVER_CODES;
