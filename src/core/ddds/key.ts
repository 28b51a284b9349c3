/**
 * From a rewrite output to a DNS key (digest section 9.5 (b), decisions.md
 * item 2). The conversion itself (percent-decoding of %80-%FF, IDNA2008,
 * Punycode) belongs to the URN library (`toDnsKey` in `src/core/urn/`); this
 * module is the single place the DDDS core reaches it through.
 */

export type DnsKeyResult =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** The contract of the URN library's `toDnsKey`. */
export type ToDnsKey = (text: string) => DnsKeyResult;

const LDH_LABEL = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)$/;

/**
 * ASCII-only key conversion, used until the URN library's IDNA conversion is
 * wired in: lowercases, checks LDH labels, lengths and empty labels, and
 * refuses any non-ASCII or percent-encoded text with DDDS_KEY_IDNA_UNAVAILABLE.
 * Returns the absolute name with its trailing dot.
 * @see RFC 1035 section 2.3.4 (63/255 limits), RFC 5890 section 2.3.1 (R-LDH)
 */
export function asciiDnsKey(text: string): DnsKeyResult {
  const fail = (code: string, message: string): DnsKeyResult => ({
    ok: false,
    error: { code, message },
  });
  if (/[^\x21-\x7e]/.test(text) || text.includes('%')) {
    return fail(
      'DDDS_KEY_IDNA_UNAVAILABLE',
      `key ${JSON.stringify(text)} needs IDNA conversion, which is not available`,
    );
  }
  let name = text.toLowerCase();
  if (name.endsWith('.')) name = name.slice(0, -1);
  if (name === '') return fail('DDDS_KEY_EMPTY', 'the key is empty');
  if (name.length > 253) {
    return fail('DDDS_KEY_TOO_LONG', `key is ${name.length} characters; at most 253`);
  }
  for (const label of name.split('.')) {
    if (label === '')
      return fail('DDDS_KEY_EMPTY_LABEL', `key ${JSON.stringify(text)} has an empty label`);
    if (label.length > 63) {
      return fail('DDDS_KEY_LABEL_TOO_LONG', `label ${JSON.stringify(label)} is over 63 octets`);
    }
    if (!LDH_LABEL.test(label)) {
      return fail(
        'DDDS_KEY_NOT_LDH',
        `label ${JSON.stringify(label)} is not letters, digits and inner hyphens`,
      );
    }
    if (label.length >= 4 && label[2] === '-' && label[3] === '-') {
      return fail(
        'DDDS_KEY_RESERVED_LABEL',
        `label ${JSON.stringify(label)} has '--' in positions 3-4 (R-LDH or A-label; RFC 5890 section 2.3.1)`,
      );
    }
  }
  return { ok: true, value: `${name}.` };
}

/**
 * The conversion `dddsStep` uses when the caller passes none. True once the
 * URN library's IDNA conversion is wired in (non-ASCII keys then convert).
 */
export const IDNA_AVAILABLE: boolean = false;
export const defaultToDnsKey: ToDnsKey = asciiDnsKey;
