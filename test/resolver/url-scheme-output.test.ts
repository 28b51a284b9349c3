/**
 * Regression (issue 31 item 6): a `javascript:` URL in the catalogue was
 * served. Import refuses `javascript:` and `data:`, but a row written into
 * the database by other means got `Location: javascript:...` from N2L and an
 * `href` in N2C HTML. One check (`isServableUrl`) now runs on import and on
 * every work a store hands out, in a real SQLite file edited behind the
 * importer's back.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyseLexUrn } from '../../src/resolver/core/from-urn.ts';
import { isServableUrl, validateRow } from '../../src/resolver/core/row.ts';
import { importFile } from '../../src/resolver/catalogue/import.ts';
import { SqliteCatalogue } from '../../src/resolver/catalogue/store.ts';
import type { ResolverApp } from '../../src/resolver/http/app.ts';
import { getFrom, sampleApp } from '../helpers/sample-catalogue.ts';

const dir = mkdtempSync(join(tmpdir(), 'lexroute-url-scheme-'));
const db = join(dir, 'catalogue.sqlite');
const URN = 'urn:lex:br:federal:lei:2020-01-01;1';
const GOOD = 'https://good.example/lei/1';
const PLANTED = ['javascript:alert(document.cookie)', 'data:text/html,<script>1</script>'];
let store: SqliteCatalogue;
let app: ResolverApp;

beforeAll(async () => {
  const file = join(dir, 'rows.jsonl');
  writeFileSync(
    file,
    [
      { urn: URN, url: 'https://a.example/placeholder-1', priority: 1 },
      { urn: URN, url: 'https://a.example/placeholder-2', priority: 2 },
      { urn: URN, url: GOOD, priority: 5 },
      { urn: 'urn:lex:br:federal:lei:2020-01-01;2', url: 'https://a.example/only', priority: 1 },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  const writer = new SqliteCatalogue(db);
  const s = await importFile(writer, file, { analyse: analyseLexUrn, onError: () => {} });
  expect(s.rejected).toBe(0);
  writer.close();
  // Written by other means: the stored documents edited with plain SQL.
  const raw = new DatabaseSync(db);
  raw
    .prepare('UPDATE works SET doc = replace(replace(doc, ?, ?), ?, ?)')
    .run(
      'https://a.example/placeholder-1',
      PLANTED[0]!,
      'https://a.example/placeholder-2',
      PLANTED[1]!,
    );
  raw
    .prepare('UPDATE works SET doc = replace(doc, ?, ?)')
    .run('https://a.example/only', PLANTED[0]!);
  const docs = raw
    .prepare('SELECT doc FROM works')
    .all()
    .map((r) => String(r.doc));
  raw.close();
  expect(docs.join('\n')).toContain('javascript:');
  store = new SqliteCatalogue(db, { readOnly: true });
  app = sampleApp(store);
});
afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (target: string, accept?: string) => getFrom(app, target, accept);

describe('a URL scheme other than http(s) is never served', () => {
  it('one check on the way in and out: http and https only', () => {
    for (const u of [GOOD, 'http://x.example', 'HTTPS://X.EXAMPLE/a?b#c']) {
      expect(isServableUrl(u), u).toBe(true);
    }
    for (const u of [
      ...PLANTED,
      'vbscript:x',
      'ftp://x.example/',
      'https://',
      ' https://x.example',
      5,
    ]) {
      expect(isServableUrl(u), String(u)).toBe(false);
    }
    for (const url of PLANTED) {
      const v = validateRow({ urn: URN, url }, analyseLexUrn);
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.error.code).toBe('ROW_BAD_URL');
    }
  });

  it('N2L redirects to the http(s) item though the planted ones have a better priority', async () => {
    const res = await get(`/uri-res/N2L?${URN}`);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(GOOD);
  });

  it('N2Ls and N2C (JSON and HTML) carry no planted URL', async () => {
    const bodies = await Promise.all([
      get(`/uri-res/N2Ls?${URN}`).then((r) => r.text()),
      get(`/uri-res/N2Ls?${URN}`, 'application/json').then((r) => r.text()),
      get(`/uri-res/N2Ls?${URN}`, 'text/html').then((r) => r.text()),
      get(`/uri-res/N2C?${URN}`).then((r) => r.text()),
      get(`/uri-res/N2C?${URN}`, 'text/html').then((r) => r.text()),
    ]);
    for (const b of bodies) {
      expect(b).toContain(GOOD);
      expect(b).not.toMatch(/javascript:|data:text/);
    }
  });

  it('a work whose only item is planted has no location: not found, no Location header', async () => {
    const res = await get('/uri-res/N2L?urn:lex:br:federal:lei:2020-01-01;2');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).not.toContain('javascript:');
  });
});
