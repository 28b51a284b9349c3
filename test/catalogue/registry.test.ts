/**
 * Registries for normalisation (RFC 9676 section 10.3) on the real LexML
 * Brasil vocabularies (`../shared/data/anchors-ddds/okfn-brasil-lexml-vocabulary/`,
 * read as they are): every acronym and alternative label found there maps
 * to its code when exactly one entry has it, and is reported as ambiguous,
 * not guessed, when several do; the resolver rewrites before matching
 * (exact match first) and reports each rewrite in N2C and problem details;
 * `lexroute urn normalize --registry` shows the same offline.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureCatalogue } from '../../src/resolver/catalogue/open.ts';
import {
  LEXML_FILES,
  parseLexmlVocabulary,
  readLexmlRegistry,
} from '../../src/resolver/catalogue/registry-lexml.ts';
import { analyseReference } from '../../src/resolver/core/from-urn.ts';
import { labelKey, Registry, type RegistryKind } from '../../src/resolver/core/registry.ts';
import { urnCommand } from '../../src/cli/commands/urn.ts';
import { catalogueCommand } from '../../src/cli/commands/catalogue.ts';
import { resolverCommand } from '../../src/cli/commands/resolver.ts';
import { DEFAULT_RESOLVER_CONFIG } from '../../src/config/resolver.ts';
import { createResolverApp } from '../../src/resolver/http/app.ts';
import { captureIo } from '../helpers/io.ts';
import { SHARED } from '../helpers/tools.ts';

const LEXML = `${SHARED}data/anchors-ddds/okfn-brasil-lexml-vocabulary`;
const present = existsSync(join(LEXML, 'autoridade.csv'));
if (!present && process.env.CI)
  throw new Error(`the LexML vocabularies are required in CI (${LEXML})`);
const skip = present ? '' : `(skipped: the LexML vocabularies are not at ${LEXML})`;

function rewrite(registry: Registry, urn: string) {
  const a = analyseReference(urn);
  if (!a.ok) throw new Error(`${urn}: ${a.error.message}`);
  return registry.rewrite(a.value);
}

describe('labelKey', () => {
  it('folds case, accents and punctuation into the URN form', () => {
    expect(labelKey('Lei Ordinária')).toBe('lei.ordinaria');
    expect(labelKey('  STF ')).toBe('stf');
    expect(labelKey('Câmara dos Deputados')).toBe('camara.dos.deputados');
  });
});

describe.skipIf(!present)(`the LexML Brasil vocabularies ${skip}`, () => {
  const registry = present ? readLexmlRegistry(LEXML) : new Registry([]);
  const URNS: Record<RegistryKind, (v: string) => string> = {
    jurisdiction: (v) => `urn:lex:br;${v}:estadual:lei:2000-01-01;1`,
    authority: (v) => `urn:lex:br:${v}:lei:2000-01-01;1`,
    measure: (v) => `urn:lex:br:federal:${v}:2000-01-01;1`,
  };

  for (const kind of ['authority', 'measure', 'jurisdiction'] as RegistryKind[]) {
    it(`${kind}: every acronym and alternative label maps to its code, or is reported ambiguous`, () => {
      const entries = parseLexmlVocabulary(
        kind,
        readFileSync(join(LEXML, LEXML_FILES[kind]), 'utf8'),
        kind,
      );
      // Which codes each label key names (states only for jurisdictions: labels are scoped by `broader`).
      const named = new Map<string, Set<string>>();
      const codes = new Set(entries.map((e) => e.code));
      const eligible = entries.filter((e) => kind !== 'jurisdiction' || e.broader === 'br');
      for (const e of entries) {
        if (kind === 'jurisdiction' && e.broader !== 'br') continue;
        for (const l of [...e.acronyms, ...e.altLabels, e.label]) {
          const k = labelKey(l);
          if (k === '') continue;
          const set = named.get(k) ?? new Set();
          set.add(e.code);
          named.set(k, set);
        }
      }
      let rewritten = 0;
      let ambiguous = 0;
      for (const e of eligible) {
        for (const label of [...e.acronyms, ...e.altLabels]) {
          const k = labelKey(label);
          // A label that spells a code is that code (exact first); one the URN syntax cannot hold is skipped.
          const asCode = kind === 'jurisdiction' ? `br;${k}` : k;
          if (k === '' || codes.has(asCode)) continue;
          const a = analyseReference(URNS[kind](k));
          if (!a.ok) continue;
          const r = registry.rewrite(a.value);
          const names = named.get(k) as Set<string>;
          if (names.size === 1) {
            const w = r.rewrites.find((x) => x.element === kind);
            expect(w?.to, `${label} (${k})`).toBe(e.code);
            rewritten++;
          } else {
            expect(
              r.rewrites.filter((x) => x.element === kind),
              k,
            ).toEqual([]);
            const amb = r.ambiguous.find((x) => x.element === kind);
            expect(amb?.candidates, k).toEqual([...names].sort());
            ambiguous++;
          }
        }
      }
      expect(rewritten).toBeGreaterThan(kind === 'authority' ? 50 : 20);
      if (kind === 'authority') expect(ambiguous).toBeGreaterThan(5);
    });
  }

  it('known cases: STF, SP, GO, Lei Ordinária, DEC, BACEN; SE, CGU ambiguous; codes stay', () => {
    const to = (urn: string) => rewrite(registry, urn).urn;
    expect(to('urn:lex:br:stf:acordao:2010-01-01;1')).toBe(
      'urn:lex:br:supremo.tribunal.federal:acordao:2010-01-01;1',
    );
    expect(to('urn:lex:br;sp;campinas:municipal:lei:2000-01-01;1')).toBe(
      'urn:lex:br;sao.paulo;campinas:municipal:lei:2000-01-01;1',
    );
    expect(to('urn:lex:br;go:estadual:lei:2000-01-01;1')).toBe(
      'urn:lex:br;goias:estadual:lei:2000-01-01;1',
    );
    expect(to('urn:lex:br:federal:lei.ordinaria:2000-01-01;1')).toBe(
      'urn:lex:br:federal:lei:2000-01-01;1',
    );
    expect(to('urn:lex:br:federal:dec:2000-01-01;1')).toBe(
      'urn:lex:br:federal:decreto:2000-01-01;1',
    );
    expect(to('urn:lex:br:bacen:circular:2000-01-01;1')).toBe(
      'urn:lex:br:banco.central:circular:2000-01-01;1',
    );
    const se = rewrite(registry, 'urn:lex:br:se:portaria:2000-01-01;1');
    expect(se.rewrites).toEqual([]);
    expect(se.ambiguous[0]?.candidates.length).toBeGreaterThan(1);
    expect(
      rewrite(registry, 'urn:lex:br:cgu:portaria:2000-01-01;1').ambiguous[0]?.candidates,
    ).toEqual(['advocacia.geral.uniao;consultoria.geral.uniao', 'controladoria.geral.uniao']);
    const same = rewrite(registry, 'urn:lex:br:senado.federal:lei:2000-01-01;1');
    expect(same.rewrites).toEqual([]);
  });

  it('the resolver rewrites before matching, exact match first, and reports it in N2C and problem details', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-registry-'));
    const { store } = await ensureCatalogue(
      join(dir, 'c.sqlite'),
      'data/sample-catalogue.jsonl',
      process.cwd(),
    );
    try {
      const app = createResolverApp({
        reader: store,
        analyse: analyseReference,
        config: DEFAULT_RESOLVER_CONFIG,
        registry,
      });
      const get = (target: string) =>
        app.handle({ method: 'GET', target, header: () => undefined, httpVersion: '1.1' });
      const n2l = get('/uri-res/N2L?urn:lex:br;sp:estadual:lei:1998-12-30;10177');
      expect(n2l.status).toBe(303);
      expect(n2l.headers.location).toContain('lei-10177-30.12.1998');
      const n2c = JSON.parse(
        get('/uri-res/N2C?urn:lex:br;sp:estadual:lei:1998-12-30;10177').body,
      ) as {
        match: { reasons: { code: string; message: string }[] };
      };
      expect(n2c.match.reasons[0]).toMatchObject({ code: 'REGISTRY_REWRITE' });
      expect(n2c.match.reasons[0]?.message).toMatch(
        /'br;sp' is the acronym 'SP' of 'br;sao.paulo'/,
      );
      // An exact name is never rewritten.
      const exact = JSON.parse(
        get('/uri-res/N2C?urn:lex:br;sao.paulo:estadual:lei:1998-12-30;10177').body,
      ) as {
        match: { exact: boolean; reasons: unknown[] };
      };
      expect(exact.match).toMatchObject({ exact: true, reasons: [] });
      const missing = get('/uri-res/N2L?urn:lex:br:cgu:portaria:2000-01-01;1');
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body)).toMatchObject({
        code: 'UNKNOWN_URN',
        registry: { rewrites: [], ambiguous: [{ element: 'authority', value: 'cgu' }] },
      });
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lexroute catalogue registry stores them in the catalogue, and the resolver uses the stored ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lexroute-registry-cli-'));
    const file = join(dir, 'c.sqlite');
    try {
      (await ensureCatalogue(file, 'data/sample-catalogue.jsonl', process.cwd())).store.close();
      const io = captureIo({ cwd: dir });
      expect(await catalogueCommand.run(['registry', LEXML, '--catalogue', file], io)).toBe(0);
      expect(io.stdout()).toMatch(/jurisdictions, .* authorities, .* measure types/);
      const rio = captureIo({ cwd: dir });
      const done = resolverCommand.run(['--listen', '127.0.0.1:0', '--catalogue', file], rio);
      let url: string | undefined;
      for (let i = 0; i < 400 && url === undefined; i++) {
        await new Promise((r) => setTimeout(r, 25));
        url = /"event":"listening","url":"([^"]+)"/.exec(rio.stderr())?.[1];
      }
      const res = await fetch(
        `${url as string}/uri-res/N2L?urn:lex:br;sp:estadual:lei:1998-12-30;10177`,
        {
          redirect: 'manual',
        },
      );
      expect(res.status).toBe(303);
      rio.abort();
      expect(await done).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lexroute urn normalize --registry shows the same rewrites offline', async () => {
    const io = captureIo();
    expect(
      await urnCommand.run(
        ['normalize', 'urn:lex:br;SP:estadual:lei:2000-01-01;1~art1', '--registry', LEXML],
        io,
      ),
    ).toBe(0);
    expect(io.stdout()).toBe('urn:lex:br;sao.paulo:estadual:lei:2000-01-01;1~art1\n');
    expect(io.stderr()).toMatch(/REGISTRY_REWRITE: jurisdiction 'br;sp' is the acronym 'SP'/);
    const json = captureIo();
    await urnCommand.run(
      ['normalize', 'urn:lex:br:cgu:portaria:2000-01-01;1', '--registry', LEXML, '--json'],
      json,
    );
    expect(JSON.parse(json.stdout())).toMatchObject({
      ok: true,
      registry: { rewrites: [], ambiguous: [{ element: 'authority', value: 'cgu' }] },
    });
    const bad = captureIo();
    expect(
      await urnCommand.run(
        ['normalize', 'urn:lex:br:x:y:2000;1', '--registry', '/nonexistent'],
        bad,
      ),
    ).toBe(1);
    expect(bad.stderr()).toMatch(/REGISTRY_UNREADABLE/);
  });
});
