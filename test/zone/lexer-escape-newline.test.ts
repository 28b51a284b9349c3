/**
 * A backslash as the last character of an unquoted word (before LF, CRLF or
 * the end of the file) does not escape the line end: BIND and Knot end the
 * word with the line, so the next line stays an entry of its own, and the
 * dangling backslash is a syntax error at that word. Before the fix the lexer
 * read `\<LF>` as an escaped newline and joined the next line into the word.
 * Inside quotes an escaped newline is still part of the string.
 *
 * Each zone is also given to named-checkzone: same verdict (loads / refused).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Lexer } from '../../src/dns/core/zone/lexer.ts';
import { loadZoneFile } from '../../src/authority/zones/load.ts';
import { toolOrSkip } from '../helpers/tools.ts';

const checkzone = toolOrSkip('named-checkzone');
const dir = mkdtempSync(join(tmpdir(), 'lexroute-escnl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEAD = '$TTL 300\n@ IN SOA ns1 hm 1 7200 3600 1209600 300\n@ IN NS ns1\nns1 IN A 192.0.2.1\n';

/** name, records after the head (line 5 on), loads?, line and column of the error. */
const CASES: readonly [string, string, boolean, number?, number?][] = [
  ['svcb-alpn', 'x IN SVCB 1 . alpn=a\\\ny IN A 192.0.2.2\n', false, 5, 15],
  ['txt-word', 'x IN TXT a\\\ny IN A 192.0.2.2\n', false, 5, 10],
  ['txt-word-crlf', 'x IN TXT a\\\r\ny IN A 192.0.2.2\r\n', false, 5, 10],
  ['in-parens', 'x IN TXT ( a\\\nb )\ny IN A 192.0.2.2\n', false, 5, 12],
  ['end-of-file', 'y IN A 192.0.2.2\nx IN TXT a\\', false, 6, 10],
  ['escaped-backslash', 'x IN TXT a\\\\\ny IN A 192.0.2.2\n', true],
  ['quoted-escaped-newline', 'x IN TXT "a\\\nb"\ny IN A 192.0.2.2\n', true],
];

function write(name: string, body: string): string {
  const f = join(dir, `${name}.zone`);
  writeFileSync(f, HEAD + body);
  return f;
}

describe('lexer: a backslash before the end of the line in a word', () => {
  it('ends the word at the line; the next line is its own entry', () => {
    const lx = new Lexer('x IN TXT a\\\ny IN A 192.0.2.2\n');
    expect(lx.next()).toBe(true);
    const first = Array.from({ length: lx.count }, (_, i) => lx.token(i));
    expect(first).toEqual(['x', 'IN', 'TXT', 'a\\']);
    expect(lx.next()).toBe(true);
    expect(lx.entryLine).toBe(2);
    const second = Array.from({ length: lx.count }, (_, i) => lx.token(i));
    expect(second).toEqual(['y', 'IN', 'A', '192.0.2.2']);
    expect(lx.lines[0]).toBe(2);
    expect(lx.next()).toBe(false);
  });

  it('the same at the end of the text and before CRLF', () => {
    for (const text of ['x TXT a\\', 'x TXT a\\\r\ny A 192.0.2.2\r\n']) {
      const lx = new Lexer(text);
      expect(lx.next()).toBe(true);
      expect(lx.token(lx.count - 1)).toBe('a\\');
    }
  });

  it.each(CASES)('%s: verdict, code and position', async (name, body, loads, line, col) => {
    const r = await loadZoneFile(write(name, body), { origin: 'example.com.' });
    const errors = r.diagnostics.filter((d) => d.severity === 'error');
    if (loads) {
      expect(errors).toEqual([]);
      expect(r.zone).toBeDefined();
      // The record after the line is read as its own record.
      expect(r.zone!.nodes.has('y.example.com.')).toBe(true);
    } else {
      expect(r.zone).toBeUndefined();
      expect(errors).toHaveLength(1);
      expect(errors[0]!.code).toBe('ZONE_BAD_ESCAPE');
      expect(errors[0]!.position).toMatchObject({ line, column: col });
    }
  });

  it.skipIf(!checkzone.path).each(CASES)(
    '%s: named-checkzone gives the same verdict',
    (name, body, loads, line) => {
      const b = spawnSync(checkzone.path!, ['example.com', write(name, body)], {
        encoding: 'utf8',
      });
      expect(b.status === 0).toBe(loads);
      if (!loads)
        expect(b.stdout + b.stderr).toMatch(
          new RegExp(`:${line}: (.*syntax error|unexpected end of input)`),
        );
    },
  );
});
