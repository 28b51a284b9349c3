/** Stable codes of the server's start-up (`ServerStartError`, also `lexroute dev`) and control socket. */
export const SERVER_CODES = {
  // Start-up.
  PORT_IN_USE: 'the address and port are already in use (EADDRINUSE)',
  PORT_DENIED: 'no permission to listen there, e.g. a port below 1024 (EACCES)',
  ADDRESS_UNAVAILABLE: 'no interface has the address (EADDRNOTAVAIL)',
  LISTEN_FAILED: 'listening failed for another reason',
  SERVER_NO_ZONES: 'no zone loaded (start anyway with --allow-empty)',
  // TSIG keys (transfers and NOTIFY).
  TSIG_KEY_FILE: 'a TSIG key file cannot be read',
  TSIG_KEY_SYNTAX:
    'a TSIG key file is not in the key "name" { algorithm ...; secret "..."; }; form',
  TSIG_KEY_ALGORITHM:
    'a TSIG key with an unknown algorithm (hmac-sha256, hmac-sha512, hmac-md5 ...)',
  TSIG_KEY_SECRET: 'a TSIG key secret that is not base64',
  TSIG_KEY_DUPLICATE: 'a TSIG key name defined twice',
  TSIG_KEY_UNKNOWN:
    'allowTransfer or a secondary zone primary names a key that tsigKeys does not define',
  SECONDARY_STATE_DIR:
    'secondary zones are configured without a state folder for their transferred zones (--state-dir)',
  // Zone transfers.
  JOURNAL_CORRUPT: 'an IXFR journal file that does not decode whole (rejected, never half used)',
  SERVED_STATE_CORRUPT:
    'a served-serial state file (<zone>serial) that does not read as {origin, serial, hash} (ignored: the zone starts from its file)',
  SERIAL_NOT_REMEMBERED:
    'warning at start: inline signing or a serial policy rewrites the serial, but without a state folder it is not kept across restarts',
  SERIAL_BELOW_SERVED:
    'warning at start: the serial served is below one served before the restart (secondaries holding it will not transfer)',
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
  CTL_ZONE_ADD_FAILED:
    'ctl zone add: the file did not load (its first error is given), or no zone file of that origin is in the configured folders',
  CTL_ZONE_FIXED:
    'ctl zone remove of a secondary zone or of the catalog zone: their configuration decides whether they are served',
  CTL_FAILED: 'a control command failed unexpectedly (the message says why)',
  CTL_AUTH_FAILED:
    'a request on a TCP control port not signed with the control key (wrong key, none, or replayed)',
  CONTROL_NOT_LOOPBACK: 'a TCP control port on an address that is not loopback',
  METRICS_NOT_LOOPBACK:
    'warning: /metrics listens on an address that is not loopback (anyone who reaches it reads the counters)',
  CONTROL_KEY_REQUIRED: 'a TCP control port without --control-key',
  CONTROL_KEY_INVALID:
    'a control key file that cannot be read, is readable by others, or holds under 16 octets of base64',
  CONTROL_KEY_WRITE:
    'ctl keygen cannot write the key file (it exists, or the folder is not writable)',
  CTL_WORKER_TIMEOUT: 'a resolver worker did not answer a forwarded control command in time',
  RESOLVER_RELOAD_FAILED:
    'the resolver configuration or registries could not be reloaded (the previous ones are kept)',
  RESOLVER_WORKER_FAILED:
    'a worker of startResolver({ workers }) exited while starting, without saying why',
} as const;
