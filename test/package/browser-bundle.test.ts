/**
 * The entry points a browser can use import no Node built-in: esbuild bundles
 * them for `platform: 'browser'` through the package's own `exports` map
 * (`browser` condition, then `lexroute-source` so no build is needed), with
 * every dependency inside the bundle. A Node built-in anywhere in the graph
 * fails the build ("could not resolve"), and none may be left in the output.
 * Each bundle then runs in a fresh V8 context that has no `process`,
 * `Buffer`, `require` or `import` of Node (only what a page has: URL,
 * TextEncoder, TextDecoder) and does real work: it parses a URN, rewrites it
 * with a NAPTR rule, loads a zone, or formats a server address.
 */
import { builtinModules } from 'node:module';
import { gzipSync } from 'node:zlib';
import { runInNewContext } from 'node:vm';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDevChain } from '../../src/dev/chain.ts';
import { startSampleChain } from '../e2e/helpers.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

interface Bundle {
  readonly code: string;
  readonly metafile: Metafile;
}

/** Bundle `import * as lib from '<spec>'` as an IIFE exposing `lib` on globalThis. */
async function bundle(spec: string, minify: boolean): Promise<Bundle> {
  const r = await build({
    stdin: {
      contents: `export * from '${spec}';`,
      resolveDir: ROOT,
      sourcefile: 'entry.js',
      loader: 'js',
    },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'lib',
    conditions: ['lexroute-source'],
    target: 'es2023',
    minify,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  return { code: r.outputFiles[0]!.text, metafile: r.metafile };
}

/** Run a bundle in a context with a browser's globals only, then `probe(lib)` there. */
function runInPage(code: string, probe: string): unknown {
  const context = { URL, TextEncoder, TextDecoder } as Record<string, unknown>;
  return runInNewContext(`${code}\n;(${probe})(lib)`, context, { timeout: 10_000 });
}

const CASES: { spec: string; probe: string; expected: unknown }[] = [
  {
    spec: 'lexroute/urn',
    probe: `(l) => {
      const r = l.parseLexUrn('urn:lex:br;sao.paulo:estadual:lei:1998-12-30;10177~art1');
      const k = l.toDnsKey('stadt.m%C3%BCnchen.lex.example.de');
      return [r.ok, r.ok && r.value.jurisdiction.code.text, k.ok && k.value,
        typeof process, typeof Buffer, typeof require];
    }`,
    expected: [
      true,
      'br',
      'stadt.xn--mnchen-3ya.lex.example.de.',
      'undefined',
      'undefined',
      'undefined',
    ],
  },
  {
    spec: 'lexroute/ddds',
    probe: `(l) => {
      const p = l.parseSubstitution('!^urn:lex:([a-z]+)[;:].*$!\\\\1.lex-routing.nic.it!i');
      const r = p.ok && l.applySubstitution(p.value, 'urn:lex:IT:stato:legge:2000-04-03;56');
      return [p.ok, r && r.matched && r.output];
    }`,
    expected: [true, 'IT.lex-routing.nic.it'],
  },
  {
    spec: 'lexroute/zone',
    probe: `(l) => {
      const text = '$ORIGIN lex.example.\\n$TTL 3600\\n@ IN SOA ns hostmaster 1 7200 900 1209600 300\\n' +
        '@ IN NS ns\\nns IN A 127.0.0.1\\n' +
        '@ IN NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1/uri-res/N2L?\\\\\\\\1!" .\\n';
      const r = l.parseZoneText(text, { origin: 'lex.example.' });
      return [r.records.length, r.diagnostics.filter((d) => d.severity === 'error').length,
        r.records.map((x) => l.typeName(x.type)).join(' ')];
    }`,
    expected: [4, 0, 'SOA NS A NAPTR'],
  },
  {
    spec: 'lexroute/client',
    probe: `(l) => {
      const s = l.parseServerAddress('[::1]:5353');
      return [l.formatServer(s), l.thttpUrl('http', 'resolver.example.', 8080, 'N2L', 'urn:lex:it:x'),
        l.parseUriList('# c\\r\\nhttp://a.example/1\\r\\n').length, typeof l.resolveLexUrn,
        typeof l.LexClient];
    }`,
    expected: [
      '[::1]:5353',
      'http://resolver.example:8080/uri-res/N2L?urn:lex:it:x',
      1,
      'function',
      'function',
    ],
  },
  {
    spec: 'lexroute',
    probe: `(l) => [l.normalizeLexUrn('URN:LEX:IT:Stato:legge:2000-04-03;56').ok, typeof l.LexClient]`,
    expected: [true, 'function'],
  },
];

describe('browser bundles of the portable entry points (esbuild, platform browser)', () => {
  const sizes: string[] = [];
  for (const c of CASES) {
    it(`${c.spec}: bundles with no Node built-in, and works in a context without Node`, async () => {
      const dev = await bundle(c.spec, false);
      const inputs = Object.keys(dev.metafile.inputs);
      expect(inputs.filter((i) => BUILTINS.has(i) || i.startsWith('node:'))).toEqual([]);
      expect(
        inputs.filter((i) => /(^|\/)src\/(cli|server|resolver-http|catalogue|dev)\//.test(i)),
      ).toEqual([]);
      expect(dev.code).not.toMatch(/\brequire\(["'](node:)?[a-z_]+["']\)|from\s*["']node:/);
      expect(runInPage(dev.code, c.probe)).toEqual(c.expected);

      const min = await bundle(c.spec, true);
      expect(runInPage(min.code, c.probe)).toEqual(c.expected);
      const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
      sizes.push(
        `${c.spec}: ${kib(min.code.length)} minified, ${kib(gzipSync(min.code, { level: 9 }).length)} gzipped`,
      );
      if (sizes.length === CASES.length) console.log(`browser bundles:\n  ${sizes.join('\n  ')}`);
    });
  }
});

/**
 * The whole chain in the browser build, in a context with a page's globals
 * only (fetch, AbortSignal, timers, URL, TextEncoder/Decoder; no process,
 * Buffer or require): DNS over the sample chain's DoH endpoint, THTTP
 * through fetch, the same URLs as the Node client.
 */
describe('the browser build of lexroute/client resolves the sample chain over DoH', () => {
  let chain: RunningDevChain;
  beforeAll(async () => {
    chain = await startSampleChain();
  }, 30_000);
  afterAll(() => chain?.close());

  it('three URNs (partition, Punycode key, unregistered) with no Node in the context', async () => {
    const { code } = await bundle('lexroute/client', true);
    const context = {
      URL,
      URLSearchParams,
      TextEncoder,
      TextDecoder,
      fetch,
      Headers,
      Response,
      AbortSignal,
      AbortController,
      performance,
      setTimeout,
      clearTimeout,
    } as Record<string, unknown>;
    const probe = `(async (l) => {
      if (typeof process !== 'undefined' || typeof Buffer !== 'undefined' || typeof require !== 'undefined')
        return 'node globals leaked';
      const client = new l.LexClient({ doh: ${JSON.stringify(chain.doh)} });
      const out = [];
      for (const urn of ['urn:lex:it:stato:legge:2000-04-03;56~art1',
        'urn:lex:de;stadt.m%C3%BCnchen:stadtrat:satzung:1997-12-09;hauptsatzung',
        'urn:lex:fr:etat:loi:2004-05-15;106']) {
        try {
          const r = await l.resolveLexUrn(urn, { client });
          out.push([r.urls[0], r.trace.steps.filter((s) => s.kind === 'naptr').map((s) => s.key)]);
        } catch (e) {
          out.push([e.code, e.trace.steps.filter((s) => s.kind === 'naptr').map((s) => s.key)]);
        }
      }
      return out;
    })(lib)`;
    const out = (await runInNewContext(`${code}\n;${probe}`, context, {
      timeout: 10_000,
    })) as [string, string[]][];
    expect(out[0]![0]).toBe(
      'https://www.normattiva.it/uri-res/N2Ls?urn:nir:stato:legge:2000-04-03;56#art1',
    );
    expect(out[1]![0]).toBe(
      'https://stadt.muenchen.de/dam/Home/Stadtverwaltung/Direktorium/Stadtrecht/pdf_1_1_0.pdf',
    );
    expect(out[1]![1]).toContain('stadt.xn--mnchen-3ya.lex.example.de.');
    expect(out[2]![0]).toBe('DNS_NXDOMAIN');
    expect(out[2]![1]).toContain('fr.lex-routing.nic.it.');
  }, 30_000);
});
