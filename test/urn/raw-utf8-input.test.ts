/**
 * Regression (issue 31 item 16): raw non-ASCII text in a LEX URN. `resolve`
 * and the page accepted `urn:lex:de;stadt.münchen:...` while `urn normalize`
 * refused it (URN_BAD_CHAR U+00FC) and `catalogue import` refused a row with
 * `república`. Every input path now applies one function (`encodeIri`,
 * RFC 3987 section 3.1) and normalises to the percent-encoded form
 * (RFC 9676 section 3); `parseLexUrn` itself stays the strict RFC 8141 parser.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  encodeIri,
  lexUrnEquivalent,
  normalizeLexUrn,
  parseLexUrn,
  rawOffset,
} from '../../src/urn/core/index.ts';
import { analyseLexUrn } from '../../src/resolver/core/from-urn.ts';
import { buildAus } from '../../src/ddds/core/aus.ts';
import { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import { exportCatalogue } from '../../src/resolver/catalogue/export.ts';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';

const RAW = 'urn:lex:de;stadt.MÜNCHEN:stadtrat:satzung:2020-01-01;1';
const CANONICAL = 'urn:lex:de;stadt.m%C3%BCnchen:stadtrat:satzung:2020-01-01;1';
const PT_RAW = 'urn:lex:br;república:federal:lei:2020-01-01;1';
const PT = 'urn:lex:br;rep%C3%BAblica:federal:lei:2020-01-01;1';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-raw-utf8-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('encodeIri: the one raw-to-URI function', () => {
  it('encodes every non-ASCII code point as UTF-8, upper-case hex, ASCII kept', () => {
    expect(encodeIri('a-ü-€-𝄞-z')).toEqual({
      text: 'a-%C3%BC-%E2%82%AC-%F0%9D%84%9E-z',
      encoded: true,
      first: 2,
    });
    expect(encodeIri('urn:lex:it:stato:legge:2000;1')).toMatchObject({ encoded: false, first: -1 });
    // The same octets as TextEncoder for valid text.
    const s = 'república Ελλάδα 日本';
    const bytes = [...new TextEncoder().encode(s)];
    const fromEncoder = bytes
      .map((b) => (b < 0x80 ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase()}`))
      .join('');
    expect(encodeIri(s).text).toBe(fromEncoder);
  });

  it('leaves a lone surrogate raw, so the parser rejects it where it stands', () => {
    const text = 'urn:lex:de;a\ud800b:x:2000-01-01;1';
    expect(encodeIri(text).text).toBe(text);
    const n = normalizeLexUrn(text);
    expect(n.ok).toBe(false);
    if (!n.ok) expect(n.error.span.start).toBe(12);
  });

  it('rawOffset maps an offset of the URI form back to the character written', () => {
    const raw = 'xü€y';
    const enc = encodeIri(raw).text; // x %C3%BC %E2%82%AC y
    expect([0, 1, 6, 7, 15, 16].map((o) => rawOffset(raw, o))).toEqual([0, 1, 1, 2, 2, 3]);
    expect(rawOffset(raw, enc.length)).toBe(raw.length);
  });
});

describe('raw UTF-8 accepted and normalised alike everywhere', () => {
  it('normalizeLexUrn: the percent-encoded canonical form, changes pointing into the raw text', () => {
    const n = normalizeLexUrn(RAW);
    expect(n.ok).toBe(true);
    if (!n.ok) return;
    expect(n.canonical).toBe(CANONICAL);
    const again = normalizeLexUrn(CANONICAL);
    expect(again.ok && again.value).toBe(CANONICAL);
    const rules = n.changes.map((c) => [c.rule, c.span.start]);
    expect(rules).toEqual([
      ['iri-encoded', RAW.indexOf('Ü')],
      ['case-fold', RAW.indexOf('M')],
      ['case-fold-encoded', RAW.indexOf('Ü')],
    ]);
    // The strict parser still refuses the raw text (RFC 8141 has no raw non-ASCII).
    expect(parseLexUrn(RAW).ok).toBe(false);
  });

  it('an error after raw text points at the character written, not into the encoding', () => {
    const bad = 'urn:lex:de;stadt.münchen:stadtrat:satzung:2020&01-01;1';
    const n = normalizeLexUrn(bad);
    expect(n.ok).toBe(false);
    if (!n.ok) {
      expect(n.error.code).toBe('LEX_BAD_CHAR');
      expect(n.error.span.start).toBe(bad.indexOf('&'));
    }
  });

  it('equivalence, the matcher, the AUS and the catalogue rows agree on one form', () => {
    expect(lexUrnEquivalent(RAW, CANONICAL)).toBe(true);
    expect(lexUrnEquivalent(PT_RAW, PT)).toBe(true);
    const a = analyseLexUrn(RAW);
    const b = analyseLexUrn(CANONICAL);
    expect(a.ok && b.ok).toBe(true);
    if (a.ok && b.ok) expect(a.value).toEqual(b.value);
    const aus = buildAus(RAW);
    expect(aus.ok).toBe(true);
    if (aus.ok) expect(aus.value.assignedName).toBe(CANONICAL);
    // An incomplete reference (no number) with raw text, as the resolver reads requests.
    const inc = analyseLexUrn('urn:lex:br;república:federal:lei:2020-01-01', { incomplete: true });
    expect(inc.ok).toBe(true);
  });

  it('`urn normalize` prints the canonical form and exits 0', async () => {
    const io = captureIo();
    expect(await run(['urn', 'normalize', RAW], io)).toBe(0);
    expect(io.stdout()).toBe(`${CANONICAL}\n`);
    expect(io.stderr()).toContain('iri-encoded');
  });

  it('`catalogue import` takes a row written with república and stores the encoded URN', async () => {
    const file = join(dir, 'pt.jsonl');
    writeFileSync(file, `${JSON.stringify({ urn: PT_RAW, url: 'https://pt.example/lei/1' })}\n`);
    const db = join(dir, 'pt.sqlite');
    const io = captureIo({ cwd: dir });
    expect(await run(['catalogue', 'import', file, '--catalogue', db], io)).toBe(0);
    expect(io.stderr()).toBe('');
    const store = new SqliteCatalogue(db, { readOnly: true });
    let text = '';
    try {
      exportCatalogue(store, 'jsonl', (line) => (text += line));
    } finally {
      store.close();
    }
    expect(JSON.parse(text.trim())).toMatchObject({ urn: PT, url: 'https://pt.example/lei/1' });
    expect(readFileSync(file, 'utf8')).toContain('república');
  });
});
