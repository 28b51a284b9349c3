/**
 * The deployment description and the zone rewrite that moves resolvers:
 * config/dev.json validates, bad values are reported with code and path, and
 * rewritten zones (every sample zone, resolvers moved to another port) still
 * check clean, `; expect` vectors included, while other ports stay as written.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { rewriteHttpPorts } from '../../src/dev/chain.ts';
import { validateDevConfig } from '../../src/dev/config.ts';
import { checkExpectations, lintNaptrRecords } from '../../src/ddds/core/lint/naptr-lint.ts';
import { loadZoneText } from '../../src/authority/zones/load.ts';
import { devConfig, REPO } from './helpers.ts';

describe('config/dev.json', () => {
  it('validates: two DNS servers on one port, two resolvers, samples', () => {
    const c = devConfig();
    expect(c.dns.map((d) => `${d.listen.host}:${d.listen.port}`)).toEqual([
      '127.0.0.1:5300',
      '127.0.0.2:5300',
    ]);
    expect(c.resolvers.map((r) => `${r.listen.host}:${r.listen.port}`)).toEqual([
      '127.0.0.1:8300',
      '127.0.0.2:8300',
    ]);
    expect(c.root).toEqual({ host: '127.0.0.1', port: 5300 });
    expect(c.samples.filter((s) => s.trace)).toHaveLength(1);
  });

  it.each([
    [[], 'DEV_CONFIG_NOT_OBJECT', ''],
    [{ dns: [], resolvers: [], sampleCatalogue: 'x' }, 'DEV_CONFIG_BAD_TYPE', 'dns'],
    [
      { resolvers: [{ name: 'r', listen: '127.0.0.1:1' }], sampleCatalogue: 'x' },
      'DEV_CONFIG_MISSING',
      'dns',
    ],
    [
      {
        dns: [{ name: 'a', listen: '127.0.0.1:53', zones: [{ file: 'z', origin: 3 }] }],
        resolvers: [{ name: 'r', listen: '127.0.0.1:1' }],
        sampleCatalogue: 'x',
      },
      'DEV_CONFIG_BAD_TYPE',
      'dns[0].zones[0].origin',
    ],
    [
      {
        dns: [{ name: 'a', listen: '127.0.0.1:53', zones: ['z'] }],
        resolvers: [{ name: 'a', listen: '127.0.0.1:53' }],
        sampleCatalogue: 'x',
      },
      'DEV_CONFIG_DUPLICATE',
      'resolvers[0].name',
    ],
    [
      {
        dns: [{ name: 'a', listen: 'localhost:99999', zones: ['z'] }],
        resolvers: [{ name: 'r', listen: '127.0.0.1:1' }],
        sampleCatalogue: 'x',
      },
      'DEV_CONFIG_BAD_LISTEN',
      'dns[0].listen',
    ],
  ] as const)('rejects %j with %s at %s', (input, code, at) => {
    const r = validateDevConfig(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues).toContainEqual(expect.objectContaining({ code, path: at }));
  });
});

describe('rewriteHttpPorts', () => {
  const moves = new Map([
    ['127.0.0.1:8300', 41000],
    ['127.0.0.2:8300', 41000],
  ]);

  it('moves resolver URLs and SRV ports, and nothing else', () => {
    const sp = readFileSync(path.join(REPO, 'zones/lex.sao-paulo.gov.br.zone'), 'utf8');
    const out = rewriteHttpPorts(sp, moves);
    expect(out).toContain('http://127.0.0.2:41000/uri-res/N2L?\\\\1');
    expect(out).not.toContain(':8300/');
    expect(out).toContain('SRV 10 60 8080 res1'); // not a resolver of the deployment
    const cp = readFileSync(path.join(REPO, 'zones/lex.campinas.sp.gov.br.zone'), 'utf8');
    expect(rewriteHttpPorts(cp, moves)).toContain(
      'SRV 10 0 41000 resolver.lex.campinas.sp.gov.br.',
    );
    expect(rewriteHttpPorts('http://127.0.0.9:8300/x', moves)).toBe('http://127.0.0.9:8300/x');
    expect(rewriteHttpPorts(sp, new Map())).toBe(sp);
  });

  it('every rewritten sample zone still loads, lints and passes its expect vectors', () => {
    for (const d of devConfig().dns) {
      for (const z of d.zones) {
        const text = rewriteHttpPorts(readFileSync(path.join(REPO, z.file), 'utf8'), moves);
        const origin = z.origin ?? `${path.basename(z.file).replace(/\.zone$/, '')}.`;
        const r = loadZoneText(text, z.file, { origin });
        const problems = [
          ...r.diagnostics,
          ...lintNaptrRecords(r.records),
          ...checkExpectations(r.expects, r.records),
        ].filter((p) => p.severity === 'error');
        expect(problems, z.file).toEqual([]);
        const records = text.split('\n').filter((l) => !l.trimStart().startsWith(';'));
        expect(records.join('\n'), z.file).not.toMatch(/\b8300\b/);
      }
    }
  });
});
