/**
 * Stable codes of the client's own DNSSEC validation (`resolve --validate`,
 * `validate: { trustAnchors }`): the reason of a `bogus` verdict (BOGUS_*)
 * and the proof kind of an `insecure` one (INSECURE_*).
 */
export const VALIDATION_CODES = {
  BOGUS_EXPIRED:
    'bogus: every RRSIG over the RRset is past its expiration (RFC 4035 section 5.3.1)',
  BOGUS_NOT_YET_VALID: 'bogus: every RRSIG over the RRset is before its inception',
  BOGUS_SIGNATURE: 'bogus: no RRSIG over the RRset verifies with the zone keys',
  BOGUS_NO_SIGNATURE: 'bogus: an RRset of a secure zone comes without an RRSIG',
  BOGUS_NO_DNSKEY:
    "bogus: the zone's DNSKEY RRset is missing or is not signed by a key of its DS or trust anchor",
  BOGUS_DS_MISMATCH: "bogus: no DNSKEY of the zone matches its parent's DS records (a wrong DS)",
  BOGUS_MISSING_DS_PROOF:
    'bogus: no DS and no signed NSEC/NSEC3 proof that the delegation is unsigned',
  BOGUS_DENIAL: 'bogus: a negative or wildcard answer without a valid NSEC/NSEC3 proof',
  BOGUS_DNAME: 'bogus: the CNAME beside a DNAME is not the one the DNAME synthesises',
  BOGUS_MALFORMED: 'bogus: a DNSSEC record or response that does not decode',
  BOGUS_FETCH: 'bogus: the DNSKEY or DS RRset needed for the chain could not be fetched',
  INSECURE_NO_DS: 'insecure: a signed NSEC/NSEC3 proves the delegation has no DS',
  INSECURE_OPT_OUT:
    'insecure: the delegation lies in a signed NSEC3 opt-out span (RFC 5155 section 6)',
  INSECURE_UNSUPPORTED_ALGORITHM:
    'insecure: the DS records (or trust anchors) name only algorithms or digests this platform lacks (RFC 4035 section 5.2)',
  INSECURE_NO_ANCHOR: 'insecure: no trust anchor at or above the name',
  INSECURE_NSEC3_ITERATIONS:
    'insecure: the denial uses NSEC3 with more iterations than the limit (default 150; validate.nsec3MaxIterations), which RFC 9276 section 3.2 lets a validator treat as insecure rather than hash',
} as const;

export type ValidationCode = keyof typeof VALIDATION_CODES;
export type BogusCode = Extract<ValidationCode, `BOGUS_${string}`>;
export type InsecureCode = Extract<ValidationCode, `INSECURE_${string}`>;
