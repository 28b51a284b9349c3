/**
 * Stable codes of DNSSEC key files and signing, in the core as they flow
 * into `ZoneDiagnostic.code` (signed-zone checks are ZONE_RRSIG_* zone codes).
 */
export const DNSSEC_KEY_CODES = {
  KEY_NONE: 'no K<zone>+*.private key files for the zone in the keys folder',
  KEY_FILE: 'a .key file without a DNSKEY record',
  KEY_FIELD_MISSING: 'a .private file lacks a field the algorithm needs',
  KEY_ALGORITHM: 'a key algorithm other than 8, 13 or 15',
  KEY_MISMATCH: 'the private key does not give the key tag in its file name',
  KEY_DIR_UNWRITABLE:
    'zone keygen: the key folder cannot be made or written (a file in the way, no permission)',
  SIGN_FAILED: 'lexroute zone sign failed for another reason',
  DNSSEC_KEYS_DIR: 'serve --keys (dnssec.keys) names no readable directory',
  DNSSEC_KEYS_UNREADABLE: "inline signing: the zone's key files cannot be read",
  DNSSEC_NO_KEYS: 'warning: inline signing finds no key for the zone; it is served unsigned',
  DNSSEC_STATE_WRITE:
    'warning: inline signing could not keep the signed version in the state folder (a restart signs again, with a new serial)',
  DNSSEC_SIGN_FAILED: 'inline signing of a zone failed (a reload keeps the version already served)',
} as const;

export type DnssecKeyCode = keyof typeof DNSSEC_KEY_CODES;
