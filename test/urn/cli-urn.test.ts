/** `lexroute urn parse | normalize | key`, run in-process with captured output. */
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIo();
  const code = await run(['urn', ...argv], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe('lexroute urn', () => {
  it('--help on the command and on every subcommand', async () => {
    const main = await cli('--help');
    expect(main.code).toBe(0);
    expect(main.out).toMatch(/parse <urn>/);
    expect(main.out).toMatch(/normalize <urn>/);
    expect(main.out).toMatch(/key <text>/);
    for (const sub of ['parse', 'normalize', 'key']) {
      const r = await cli(sub, '--help');
      expect(r.code, sub).toBe(0);
      expect(r.out).toContain(`Usage: lexroute urn ${sub}`);
      expect(r.out).toContain('--json');
    }
  });

  it('usage errors exit 2', async () => {
    expect((await cli()).code).toBe(2);
    const unknown = await cli('frobnicate');
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown subcommand 'frobnicate'");
    const missing = await cli('parse');
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('missing URN');
    expect((await cli('parse', 'a', 'b')).code).toBe(2);
    const badOption = await cli('key', '--frob', 'x');
    expect(badOption.code).toBe(2);
    expect(badOption.err).toContain("Try 'lexroute urn --help'");
  });

  it('parse prints the readable tree and exits 0', async () => {
    const urn =
      'urn:lex:eu:tribunal.justicia:sentencia:2009-06-11;33-08@original:es$juradmin.eu;jurifast:text-html:todo:anonimo~par3';
    const r = await cli('parse', urn);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const lines = r.out.split('\n');
    expect(lines[0]).toBe(urn);
    expect(lines).toContain('jurisdiction       eu');
    expect(lines).toContain('    issuer         tribunal.justicia');
    expect(lines).toContain('  measure          sentencia');
    expect(lines).toContain('    date           2009-06-11');
    expect(lines).toContain('    number         33-08');
    expect(lines).toContain('  version          original');
    expect(lines).toContain('  language         es');
    expect(lines).toContain('  editor           juradmin.eu ; jurifast');
    expect(lines).toContain('  format           text-html');
    expect(lines).toContain('  component        todo');
    expect(lines).toContain('  feature          anonimo');
    expect(lines).toContain('partition          par3');
  });

  it('parse shows errors as "column: CODE message" with a caret, exit 1', async () => {
    const urn = 'urn:lex:it:stato:legge:2003-13-21;456';
    const r = await cli('parse', urn);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      `${urn}\n${' '.repeat(23)}${'^'.repeat(10)}\n24: LEX_BAD_DATE month 13 does not exist\n`,
    );
  });

  it('parse prints warnings but exits 0', async () => {
    const r = await cli('parse', 'urn:lex:il:state:law:1999-09-02|x;5');
    expect(r.code).toBe(0);
    expect(r.out).toContain('date           1999-09-02  (local date: x)');
    expect(r.err).toContain('warning: 32: LEX_RAW_PIPE');
  });

  it('parse --json gives the tree with spans, or the errors', async () => {
    const ok = await cli('parse', '--json', 'urn:lex:it:stato:legge:2003-09-21;456');
    expect(ok.code).toBe(0);
    const tree = JSON.parse(ok.out) as {
      ok: boolean;
      urn: { jurisdiction: { code: { text: string; span: unknown } } };
    };
    expect(tree.ok).toBe(true);
    expect(tree.urn.jurisdiction.code).toEqual({ text: 'it', span: { start: 8, end: 10 } });
    const bad = await cli('parse', 'urn:nir:stato:legge:2000-01-01;1', '--json');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out)).toEqual({
      ok: false,
      errors: [
        {
          code: 'LEX_NOT_LEX',
          message: 'the namespace is "nir", not "lex"',
          severity: 'error',
          span: { start: 4, end: 7 },
        },
      ],
    });
  });

  it('normalize prints the canonical form and the changes', async () => {
    const r = await cli('normalize', 'URN:LEX:de:Stadt.M%c3%9cnchen:x:2000-01-01;1');
    expect(r.code).toBe(0);
    expect(r.out).toBe('urn:lex:de:stadt.m%C3%BCnchen:x:2000-01-01;1\n');
    expect(r.err).toContain('changed at 1: scheme-lowercase');
    expect(r.err).toContain('case-fold-encoded');
    expect(r.err).toContain('percent-hex-uppercase');
    const json = await cli('normalize', '--json', 'urn:lex:it:stato:legge:2000-01-01;1');
    expect(JSON.parse(json.out)).toEqual({
      ok: true,
      canonical: 'urn:lex:it:stato:legge:2000-01-01;1',
      changes: [],
    });
    const bad = await cli('normalize', 'urn:lex:it');
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('11: LEX_MISSING_AUTHORITY');
  });

  it('key prints the DNS key, or the error with a caret', async () => {
    const r = await cli('key', 'm%C3%BCnchen.lex.example.de');
    expect(r).toEqual({ code: 0, out: 'xn--mnchen-3ya.lex.example.de.\n', err: '' });
    const bad = await cli('key', 'a%2Eb');
    expect(bad.code).toBe(1);
    expect(bad.err.split('\n').slice(0, 2)).toEqual(['a%2Eb', ' ^^^']);
    expect(bad.err).toContain('2: KEY_ENCODED_ASCII');
    const json = await cli('key', '--json', 'закон.рф');
    expect(JSON.parse(json.out)).toEqual({ ok: true, value: 'xn--80ankme.xn--p1ai.' });
  });
});
