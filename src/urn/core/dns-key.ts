/**
 * From a string with percent-encoded (or raw) UTF-8 to a DNS key: an absolute
 * name of lowercased A-labels with a trailing dot (RFC 9676 section 10.1;
 * digest 9.5 (b), decisions.md item 2).
 *
 * Only %80-%FF is decoded (decoding `%2E` would change the labels). ASCII
 * labels are LDH (may start with `_`); `xn--` labels must round-trip (RFC
 * 5891 section 5.3); other labels are mapped (per-code-point lowercase, NFC),
 * checked (RFC 5891 section 5.4) and Punycode-encoded; R-LDH labels are
 * refused (RFC 5890 section 2.3.1).
 */
import { err, type Err, type Result } from '../../kit/core/result.ts';
import { lowerCodePoints, pctDecodeUtf8, pctOctet, scanPctUtf8 } from './chars.ts';
import type { UrnCode } from './codes.ts';
import { diag } from './fail.ts';
import {
  bidiRuleFailure,
  checkULabel,
  isRtlLabel,
  punycodeDecode,
  punycodeEncode,
  type LabelProblem,
} from './idna.ts';
import type { UrnDiagnostic } from './types.ts';

export const MAX_LABEL_OCTETS = 63;
export const MAX_NAME_CHARS = 253;

interface Converted {
  readonly aLabel: string;
  /** The Unicode form (same as aLabel for plain LDH labels), for the Bidi rule. */
  readonly uLabel: string;
}

type LabelResult = Result<Converted, LabelProblem>;

function problem(code: UrnCode, message: string, start: number, end: number): LabelResult {
  return err({ code, message, start, end });
}

function isLdh(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d;
}

/** Convert one label (raw Unicode or ASCII). Problem positions are code-unit offsets in `label`. */
function convertLabel(label: string): LabelResult {
  const n = label.length;
  if (n === 0) return problem('KEY_EMPTY_LABEL', 'the label is empty', 0, 0);
  let ascii = true;
  for (let i = 0; i < n; i++) if (label.charCodeAt(i) >= 0x80) ascii = false;
  return ascii ? convertAsciiLabel(label) : convertUnicodeLabel(label);
}

/** An ASCII label: LDH (an optional leading "_"), hyphens, reserved LDH, A-label checks, length. */
function convertAsciiLabel(label: string): LabelResult {
  const n = label.length;
  const l = label.toLowerCase();
  const from = l.charCodeAt(0) === 0x5f ? 1 : 0; // a leading "_" (SRV-style owner names)
  if (from === 1 && n === 1) return problem('KEY_BAD_LDH', 'the label is only "_"', 0, 1);
  for (let i = from; i < n; i++) {
    if (!isLdh(l.charCodeAt(i))) {
      const ch = l[i] === ' ' ? 'space' : `"${l[i]}"`;
      return problem(
        'KEY_BAD_LDH',
        `${ch} is not allowed in a DNS label (letters, digits, "-")`,
        i,
        i + 1,
      );
    }
  }
  if (l.charCodeAt(from) === 0x2d || l.charCodeAt(n - 1) === 0x2d) {
    return problem('KEY_HYPHEN', 'a label must not start or end with "-"', 0, n);
  }
  if (n >= 4 && l.charCodeAt(2) === 0x2d && l.charCodeAt(3) === 0x2d && from === 0) {
    if (!l.startsWith('xn')) {
      return problem(
        'KEY_RLDH',
        `"${l}" has "--" in positions 3-4 but is not an A-label (reserved LDH label, RFC 5890 section 2.3.1)`,
        0,
        n,
      );
    }
    const checked = checkALabel(l);
    if (checked) return checked;
  }
  if (n > MAX_LABEL_OCTETS) {
    return problem(
      'KEY_LABEL_TOO_LONG',
      `the label has ${n} octets (at most ${MAX_LABEL_OCTETS})`,
      0,
      n,
    );
  }
  let u = l;
  if (l.startsWith('xn--')) u = punycodeDecode(l.slice(4)) ?? l;
  return { ok: true, value: { aLabel: l, uLabel: u } };
}

/** A label with non-ASCII characters: mapped, normalised, checked as a U-label, Punycode-encoded. */
function convertUnicodeLabel(label: string): LabelResult {
  const n = label.length;
  // Every code point costs at least one character after "xn--": more than 59 can never fit
  // (checked first, so a huge label costs no IDNA or Punycode work).
  if (n > 4 * MAX_LABEL_OCTETS) {
    return problem(
      'KEY_LABEL_TOO_LONG',
      `the label has ${n} characters, far over ${MAX_LABEL_OCTETS} octets`,
      0,
      n,
    );
  }
  const mapped = lowerCodePoints(label).normalize('NFC');
  let points = 0;
  for (let i = 0; i < mapped.length; i++) if ((mapped.charCodeAt(i) & 0xfc00) !== 0xdc00) points++;
  if (points > MAX_LABEL_OCTETS - 4) {
    return problem(
      'KEY_LABEL_TOO_LONG',
      `the label has ${points} code points: its A-label would exceed ${MAX_LABEL_OCTETS} octets`,
      0,
      n,
    );
  }
  const bad = checkULabel(mapped);
  if (bad) {
    // Offsets in `mapped` equal offsets in `label` when mapping kept the length.
    return mapped.length === n ? err(bad) : err({ ...bad, start: 0, end: n });
  }
  const encoded = punycodeEncode(mapped);
  if (encoded === undefined)
    return problem('KEY_PUNYCODE', 'Punycode encoding overflowed (RFC 3492 section 6.4)', 0, n);
  const aLabel = 'xn--' + encoded;
  if (aLabel.length > MAX_LABEL_OCTETS) {
    return problem(
      'KEY_LABEL_TOO_LONG',
      `the A-label "${aLabel.slice(0, 20)}..." has ${aLabel.length} octets (at most ${MAX_LABEL_OCTETS})`,
      0,
      n,
    );
  }
  return { ok: true, value: { aLabel, uLabel: mapped } };
}

/**
 * RFC 5891 section 5.3: an "xn--" label must decode to a valid U-label whose
 * encoding is the same label (RFC 5890 section 2.3.1: otherwise a fake A-label).
 */
function checkALabel(l: string): LabelResult | undefined {
  const n = l.length;
  const fake = (why: string): LabelResult =>
    problem('KEY_FAKE_A_LABEL', `"${l}" is not a valid A-label: ${why}`, 0, n);
  const body = l.slice(4);
  if (body.length === 0) return fake('nothing follows "xn--"');
  const u = punycodeDecode(body);
  if (u === undefined) return fake('its Punycode does not decode (RFC 3492 section 6.2)');
  let nonAscii = false;
  for (let i = 0; i < u.length; i++) if (u.charCodeAt(i) >= 0x80) nonAscii = true;
  if (!nonAscii) return fake('it decodes to ASCII only');
  const bad = checkULabel(u);
  if (bad) return fake(`it decodes to an invalid U-label (${bad.message})`);
  const again = punycodeEncode(u);
  if (again === undefined || 'xn--' + again !== l)
    return fake('re-encoding its U-label gives a different label');
  return undefined;
}

/**
 * Convert one label to its A-label form (or the lowercased LDH label).
 * Error spans are offsets in `label`.
 */
export function toALabel(label: string): Result<string, UrnDiagnostic> {
  const dot = label.indexOf('.');
  if (dot >= 0) return failWith('KEY_BAD_LDH', 'a single label cannot contain "."', dot, dot + 1);
  const r = convertLabel(label);
  if (!r.ok) return failWith(r.error.code, r.error.message, r.error.start, r.error.end);
  const bidi = isRtlLabel(r.value.uLabel) ? bidiRuleFailure(r.value.uLabel) : 0;
  if (bidi) {
    const message = `the label breaks condition ${bidi} of the Bidi rule (RFC 5893 section 2)`;
    return failWith('KEY_BIDI', message, 0, label.length);
  }
  return { ok: true, value: r.value.aLabel };
}

/** Convert a key into an absolute DNS name of A-labels with a trailing dot (spans in `text`). */
export function toDnsKey(text: string): Result<string, UrnDiagnostic> {
  const n = text.length;
  if (n === 0) return failWith('KEY_EMPTY', 'the key is empty', 0, 0);
  if (text === '.') return failWith('KEY_EMPTY', 'the key is the root name "." only', 0, 1);
  const split = splitKeyLabels(text);
  if (!split.ok) return split;
  const labels = split.value;
  const out: string[] = [];
  const uLabels: string[] = [];
  for (const l of labels) {
    const r = keyLabel(text, l);
    if (!r.ok) return r;
    out.push(r.value.aLabel);
    uLabels.push(r.value.uLabel);
  }
  // RFC 5893 section 2: in a Bidi domain name (one with an RTL label) every label meets the rule.
  if (uLabels.some(isRtlLabel)) {
    for (let k = 0; k < uLabels.length; k++) {
      const f = bidiRuleFailure(uLabels[k]!);
      if (f) {
        return failWith(
          'KEY_BIDI',
          `label "${out[k]}" breaks condition ${f} of the Bidi rule (RFC 5893 section 2) in a name with right-to-left labels`,
          labels[k]!.start,
          labels[k]!.end,
        );
      }
    }
  }
  const name = out.join('.');
  if (name.length > MAX_NAME_CHARS) {
    return failWith(
      'KEY_NAME_TOO_LONG',
      `the name has ${name.length} characters (at most ${MAX_NAME_CHARS})`,
      0,
      n,
    );
  }
  return { ok: true, value: name + '.' };
}

function failWith(code: UrnCode, message: string, start: number, end: number): Err<UrnDiagnostic> {
  return { ok: false, error: diag(code, message, start, end) };
}

/** One label of a key: its decoded text, the key offset of each code unit, and its span in the key. */
interface KeyLabel {
  readonly text: string;
  readonly offsets: readonly number[];
  readonly start: number;
  readonly end: number;
}

/** Decode %80-%FF and split on "." in one pass, keeping each code unit's original offset. */
function splitKeyLabels(text: string): Result<KeyLabel[], UrnDiagnostic> {
  const n = text.length;
  const labels: KeyLabel[] = [];
  let cur = '';
  let offsets: number[] = [];
  let labelStart = 0;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      const b = pctOctet(text, i);
      if (b < 0)
        return failWith(
          'KEY_BAD_PERCENT',
          `"%" must be followed by two hexadecimal digits`,
          i,
          Math.min(n, i + 3),
        );
      if (b < 0x80) {
        return failWith(
          'KEY_ENCODED_ASCII',
          `"${text.slice(i, i + 3)}" encodes the ASCII character ${JSON.stringify(String.fromCharCode(b))}; ` +
            'encoded ASCII is not decoded in a key (it would change the label structure)',
          i,
          i + 3,
        );
      }
      const end = scanPctUtf8(text, i);
      if (end < 0) {
        const at = -end - 1;
        return failWith(
          'KEY_BAD_UTF8',
          `percent-encoded octets are not valid UTF-8 at "${text.slice(at, at + 3)}"`,
          at,
          Math.min(n, at + 3),
        );
      }
      const s = pctDecodeUtf8(text, i, end);
      for (let k = 0; k < s.length; k++) offsets.push(i);
      cur += s;
      i = end;
      continue;
    }
    if (c === 0x2e) {
      labels.push({ text: cur, offsets, start: labelStart, end: i });
      cur = '';
      offsets = [];
      labelStart = i + 1;
      i++;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff))
        return failWith('KEY_BAD_UTF8', 'an unpaired surrogate is not text', i, i + 1);
      cur += text.slice(i, i + 2);
      offsets.push(i, i + 1);
      i += 2;
      continue;
    }
    if (c >= 0xdc00 && c <= 0xdfff)
      return failWith('KEY_BAD_UTF8', 'an unpaired surrogate is not text', i, i + 1);
    cur += text[i];
    offsets.push(i);
    i++;
  }
  if (!(cur === '' && labels.length > 0 && labelStart === n)) {
    labels.push({ text: cur, offsets, start: labelStart, end: n });
  }
  return { ok: true, value: labels };
}

/** One label converted (`convertLabel`), its failure's span moved back into the key. */
function keyLabel(
  text: string,
  l: KeyLabel,
): Result<{ aLabel: string; uLabel: string }, UrnDiagnostic> {
  const n = text.length;
  if (l.text.length === 0) {
    const where = l.start === 0 ? 'a leading dot' : 'two dots in a row';
    return failWith(
      'KEY_EMPTY_LABEL',
      `empty label (${where})`,
      Math.max(0, l.start - 1),
      Math.min(n, l.start + 1),
    );
  }
  const r = convertLabel(l.text);
  if (r.ok) return r;
  const p = r.error;
  const s = p.start < l.offsets.length ? l.offsets[p.start]! : l.end;
  const e =
    p.end > 0 && p.end - 1 < l.offsets.length ? endOffset(text, l.offsets[p.end - 1]!) : l.end;
  return failWith(p.code, p.message, s, Math.max(s, e));
}

/** End offset (exclusive) in `text` of the character or %-sequence starting at `i`. */
function endOffset(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x25) {
    const c = text.charCodeAt(i);
    return c >= 0xd800 && c <= 0xdbff ? i + 2 : i + 1;
  }
  const e = scanPctUtf8(text, i);
  return e < 0 ? i + 3 : e;
}
