/**
 * Domain names between presentation and wire form, and the server's lookup
 * key: the uncompressed wire form with ASCII letters lowercased (RFC 4343),
 * one UTF-16 unit per octet, as `Buffer.toString('latin1')` reads it from a
 * query. Unique per name; dropping the first label is
 * `key.slice(1 + key.charCodeAt(0))`.
 */

/** The root name's key: one zero octet. */
export const ROOT_KEY = '\u0000';

/** Thrown only for names that cannot be encoded (callers validate zone data first). */
export class NameError extends Error {
  readonly code: 'NAME_TOO_LONG' | 'LABEL_TOO_LONG' | 'EMPTY_LABEL' | 'BAD_ESCAPE';
  constructor(code: NameError['code'], message: string) {
    super(message);
    this.name = 'NameError';
    this.code = code;
  }
}

function lowerOctet(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

/**
 * Encode an absolute presentation name (`a.example.`, `.`, with `\X`/`\DDD`
 * escapes) to uncompressed wire octets. A missing trailing dot is accepted.
 */
export function nameToWire(name: string): Uint8Array {
  const out: number[] = [];
  if (name === '.' || name === '') return Uint8Array.of(0);
  let label: number[] = [];
  const flush = () => {
    if (label.length === 0) throw new NameError('EMPTY_LABEL', `empty label in ${name}`);
    if (label.length > 63) throw new NameError('LABEL_TOO_LONG', `label over 63 octets in ${name}`);
    out.push(label.length, ...label);
    label = [];
  };
  for (let i = 0; i < name.length; i++) {
    const ch = name.charCodeAt(i);
    if (ch === 0x5c) {
      const next = name.charCodeAt(i + 1);
      if (next >= 0x30 && next <= 0x39) {
        const digits = name.slice(i + 1, i + 4);
        if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) {
          throw new NameError('BAD_ESCAPE', `bad \\DDD escape in ${name}`);
        }
        label.push(Number(digits));
        i += 3;
      } else if (Number.isNaN(next)) {
        throw new NameError('BAD_ESCAPE', `trailing backslash in ${name}`);
      } else {
        if (next > 0xff) throw new NameError('BAD_ESCAPE', `non-octet character in ${name}`);
        label.push(next);
        i += 1;
      }
    } else if (ch === 0x2e) {
      flush();
    } else {
      if (ch > 0xff) throw new NameError('BAD_ESCAPE', `non-octet character in ${name}`);
      label.push(ch);
    }
  }
  if (label.length > 0) flush();
  out.push(0);
  if (out.length > 255) throw new NameError('NAME_TOO_LONG', `name over 255 octets: ${name}`);
  return Uint8Array.from(out);
}

/** Scratch for wireToKey: a name is at most 255 octets. */
const KEY_CODES = new Uint16Array(256);

/** The lookup key of the uncompressed name `bytes[start, end)`, as one flat string. */
export function wireToKey(bytes: Uint8Array, start = 0, end = bytes.length): string {
  const n = end - start;
  if (n <= 0) return '';
  if (n > KEY_CODES.length) {
    let s = '';
    for (let i = start; i < end; i++) s += String.fromCharCode(lowerOctet(bytes[i]!));
    return s;
  }
  for (let i = 0; i < n; i++) KEY_CODES[i] = lowerOctet(bytes[start + i]!);
  return String.fromCharCode.apply(null, KEY_CODES.subarray(0, n) as unknown as number[]);
}

/** The lookup key of a presentation name. */
export function nameKey(name: string): string {
  return wireToKey(nameToWire(name));
}

/** The key's wire octets (the key already is lowercased wire form). */
export function keyToWire(key: string): Uint8Array {
  const out = new Uint8Array(key.length);
  for (let i = 0; i < key.length; i++) out[i] = key.charCodeAt(i);
  return out;
}

/** Number of labels of a key, the root not counted. */
export function keyLabelCount(key: string): number {
  let n = 0;
  let i = 0;
  while (i < key.length) {
    const len = key.charCodeAt(i);
    if (len === 0) break;
    n++;
    i += 1 + len;
  }
  return n;
}

/** The key of the parent name, or undefined for the root. */
export function keyParent(key: string): string | undefined {
  const len = key.charCodeAt(0);
  if (len === 0 || Number.isNaN(len)) return undefined;
  return key.slice(1 + len);
}

/** True when `key` equals `ancestor` or lies below it. */
export function keyIsSubdomain(key: string, ancestor: string): boolean {
  if (!key.endsWith(ancestor)) return false;
  if (key.length === ancestor.length) return true;
  // The suffix must start on a label boundary.
  let i = 0;
  const cut = key.length - ancestor.length;
  while (i < cut) i += 1 + key.charCodeAt(i);
  return i === cut;
}

/** Offsets of each label start in a key (the root octet included last). */
export function keyLabelOffsets(key: string): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < key.length) {
    out.push(i);
    const len = key.charCodeAt(i);
    if (len === 0) break;
    i += 1 + len;
  }
  return out;
}

/** Presentation form of a key (lowercase, trailing dot, `\DDD` for octets that need it). */
export function keyToName(key: string): string {
  if (key === ROOT_KEY) return '.';
  let out = '';
  let i = 0;
  while (i < key.length) {
    const len = key.charCodeAt(i);
    if (len === 0) break;
    for (let j = i + 1; j <= i + len; j++) {
      const c = key.charCodeAt(j);
      const ch = key[j]!;
      if (c <= 0x20 || c >= 0x7f) out += `\\${String(c).padStart(3, '0')}`;
      else out += '.\\";()@$'.includes(ch) ? `\\${ch}` : ch;
    }
    out += '.';
    i += 1 + len;
  }
  return out;
}

/** Replace the suffix `oldSuffix` of `key` by `newSuffix` (DNAME substitution); undefined when too long. */
export function keyReplaceSuffix(
  key: string,
  oldSuffix: string,
  newSuffix: string,
): string | undefined {
  const out = key.slice(0, key.length - oldSuffix.length) + newSuffix;
  return out.length > 255 ? undefined : out;
}
