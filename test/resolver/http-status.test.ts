/**
 * The HTTP edges' one failure-to-status table each (issue 19): the
 * resolver's `HTTP_STATUS` (resolver-http/codes.ts) and DoH's
 * `DOH_HTTP_STATUS` (core/wire/codes.ts). Every code of the closed unions has
 * a status (the `Record` types make a missing one a compile error), the
 * status each code's meaning documents in docs/codes.md is the table's, and
 * the resolver's real answers carry the table's status with the code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CATALOGUE_CODES } from '../../src/resolver/catalogue/codes.ts';
import { MATCH_CODES } from '../../src/resolver/core/codes.ts';
import { DOH_CODES, DOH_HTTP_STATUS, dohStatus } from '../../src/dns/core/wire/codes.ts';
import { HTTP_STATUS, RESOLVER_HTTP_CODES } from '../../src/resolver/http/codes.ts';
import { sampleApp, sampleCatalogue } from '../helpers/sample-catalogue.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-http-status-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ALL: Record<string, string> = {
  ...RESOLVER_HTTP_CODES,
  ...MATCH_CODES,
  ...CATALOGUE_CODES,
  ...DOH_CODES,
};

/** The status written in a code's meaning: "(404)", "(300, with ...)", "(414 in the URL, 413 ...)". */
function documented(code: string): number[] {
  return [...(ALL[code] ?? '').matchAll(/\b([1-5]\d\d)\b/g)].map((m) => Number(m[1]));
}

describe('failure to HTTP status', () => {
  it('the resolver: every code whose meaning gives a status is in HTTP_STATUS with it', () => {
    for (const [code, status] of Object.entries(HTTP_STATUS)) {
      expect(documented(code), `${code}: docs/codes.md gives its status`).toContain(status);
    }
    const withStatus = Object.keys({ ...RESOLVER_HTTP_CODES, ...MATCH_CODES }).filter(
      (c) => documented(c).length > 0,
    );
    expect(withStatus.filter((c) => !(c in HTTP_STATUS))).toEqual([]);
    expect(Object.keys(RESOLVER_HTTP_CODES).filter((c) => !(c in HTTP_STATUS))).toEqual([]);
  });

  it('DoH: every problem code has its status, 414 for a too-large dns parameter', () => {
    for (const [code, status] of Object.entries(DOH_HTTP_STATUS)) {
      const doc = documented(code);
      if (code !== 'DOH_BAD_BASE64URL')
        expect(doc, `${code}: docs/codes.md gives its status`).toContain(status);
    }
    const startUp = Object.entries(DOH_CODES).filter(([, m]) => m.includes('start-up'));
    expect(Object.keys(DOH_HTTP_STATUS).sort()).toEqual(
      Object.keys(DOH_CODES)
        .filter((c) => !startUp.some(([s]) => s === c))
        .sort(),
    );
    expect(dohStatus('DOH_TOO_LARGE')).toBe(413);
    expect(dohStatus('DOH_TOO_LARGE', true)).toBe(414);
    expect(dohStatus('DOH_NOT_FOUND', true)).toBe(404);
  });

  it('the resolver answers each kind of failure with the table’s status and the code', async () => {
    const store = await sampleCatalogue(dir, 'c.sqlite');
    try {
      const app = sampleApp(store);
      const ask = (target: string, method = 'GET') => {
        const res = app.handle({ method, target, header: () => undefined, httpVersion: '1.1' });
        const json = (res.headers['content-type'] ?? '').includes('json');
        const body = json ? (JSON.parse(res.body) as { code?: string }) : {};
        return { status: res.status, code: body.code, logged: res.code };
      };
      const cases: [string, string, string?][] = [
        ['/nothing', 'NO_SUCH_ROUTE'],
        ['/uri-res/N2X?urn:lex:br:federal:lei:2002-01-10;10406', 'UNKNOWN_SERVICE'],
        ['/uri-res/N2R?urn:lex:br:federal:lei:2002-01-10;10406', 'SERVICE_NOT_IMPLEMENTED'],
        ['/uri-res/N2L?urn:lex:br:federal:lei:2002-01-10;10406', 'METHOD_NOT_ALLOWED', 'DELETE'],
        ['/uri-res/N2L?', 'MISSING_URN'],
        ['/uri-res/N2L?urn:lex:', 'INVALID_URN'],
        [`/uri-res/N2L?urn:lex:br:${'x'.repeat(9000)}`, 'TARGET_TOO_LONG'],
        ['/uri-res/N2L?urn:lex:zz:federal:lei:1999-01-01;1', 'UNKNOWN_URN'],
      ];
      for (const [target, code, method] of cases) {
        const got = ask(target, method);
        expect(got, `${method ?? 'GET'} ${target.slice(0, 60)}`).toEqual({
          status: HTTP_STATUS[code as keyof typeof HTTP_STATUS],
          code,
          logged: code,
        });
      }
    } finally {
      store.close();
    }
  });
});
