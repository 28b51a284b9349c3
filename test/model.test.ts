/**
 * One definition per thing (issue 19), checked over the text of src: no
 * TYPE_ constant defined twice (core/rr/types.ts holds them), one union of
 * the RFC 2169 service names, one UTF-8 decoder, one FNV-1a, one bounded memo,
 * one decoder of NAPTR RDATA's layout, one record model (the client reads
 * the records of core/rr/record.ts, not dns-packet's shapes).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts'))
        out.push({ file: relative(root, p).split('\\').join('/'), text: readFileSync(p, 'utf8') });
    }
  };
  walk(join(root, 'src'));
  return out;
}

/** Where each match of `re` is, as "file: match". */
function sites(files: { file: string; text: string }[], re: RegExp): string[] {
  const out: string[] = [];
  for (const { file, text } of files)
    for (const m of text.matchAll(re)) out.push(`${file}: ${m[0].replace(/\s+/g, ' ')}`);
  return out;
}

describe('one definition per thing', () => {
  const files = sources();

  it('every TYPE_ constant is defined once (core/rr/types.ts); others import it', () => {
    const defs = sites(files, /^(?:export )?const (TYPE_[A-Z0-9_]+)\b/gm);
    const byName = new Map<string, string[]>();
    for (const d of defs) {
      const name = /const (TYPE_[A-Z0-9_]+)/.exec(d)![1]!;
      byName.set(name, [...(byName.get(name) ?? []), d]);
    }
    expect(byName.get('TYPE_NAPTR')).toEqual(['src/dns/core/rr/types.ts: export const TYPE_NAPTR']);
    expect([...byName.values()].filter((v) => v.length > 1)).toEqual([]);
    // The numeric codes live in core/rr/types.ts only.
    const numeric = sites(files, /^(?:export )?const TYPE_[A-Z0-9_]+ = \d+;/gm);
    expect(numeric.filter((d) => !d.startsWith('src/dns/core/rr/types.ts:'))).toEqual([]);
  });

  it('the RFC 2169 service names are one union (core/ddds/trace.ts)', () => {
    const unions = sites(files, /'N2L'\s*\|\s*'N2Ls'/g);
    expect(unions).toEqual(["src/ddds/core/trace.ts: 'N2L' | 'N2Ls'"]);
  });

  it('one UTF-8 decoder, one FNV-1a, one bounded memo (core/kit)', () => {
    // A UTF-8 decoder reads the lead octet ranges (core/urn/chars.ts validates
    // %hh triplets of URN text, with positions: not a decoder of octets).
    // FNV-1a multiplies by its prime.
    expect(
      sites(files, /0xf0 && \w+ <=? 0xf4|0xf0 && \w+ < 0xf5/g)
        .map((s) => s.split(':')[0])
        .filter((f) => f !== 'src/urn/core/chars.ts'),
    ).toEqual(['src/kit/core/utf8.ts']);
    expect(sites(files, /0x01000193/g).map((s) => s.split(':')[0])).toEqual([
      'src/kit/core/hash.ts',
    ]);
    expect(
      sites(files, /size >= [\w.]+\) [\w.#]+\.clear\(\)/g).map((s) => s.split(':')[0]),
    ).toEqual(['src/kit/core/memo.ts']);
  });
  it('NAPTR RDATA is decoded in one place (core/rr/naptr.ts); its readers import it', () => {
    expect(sites(files, /export function naptrLayout\b/g).map((s) => s.split(':')[0])).toEqual([
      'src/dns/core/rr/naptr.ts',
    ]);
    // The walk over ORDER and PREFERENCE, then FLAGS, SERVICES and REGEXP.
    expect(
      sites(files, /(?:=|\+) 4;(?:\n[^\n]*){0,2}?\n\s*for \(let \w+ = 0; \w+ < 3; \w+\+\+\)/g).map(
        (s) => s.split(':')[0],
      ),
    ).toEqual(['src/dns/core/rr/naptr.ts']);
    const readers = [
      'src/ddds/core/lint/naptr-lint.ts',
      'src/authority/core/answer.ts',
      'src/dns/core/wire/response.ts',
    ];
    for (const file of readers) {
      const text = files.find((f) => f.file === file)?.text ?? '';
      expect([file, /naptrLayout\(/.test(text)]).toEqual([file, true]);
    }
  });

  it('the zone store is behind methods: no module outside store.ts reads or writes its columns', () => {
    const columns =
      'recCount|recNode|recType|recTtl|recOff|recLen|recLine|recColumn|recNext|recFlags|recFile|' +
      'otherClass|blocks|nodeCount|nodeNameOff|nodeNameLen|nodeHash|nodeFirstSet|nodeFlags|' +
      'nameBlocks|slots|setCount|setNode|setType|setTtl|setFirst|setLast|setSize|setNext|setFlags';
    const file = files.find((f) => f.file === 'src/dns/core/zone/store.ts')!;
    const store = { ...file, text: file.text.slice(file.text.indexOf('export class ZoneStore')) };
    // In the class, every column is a private field: no public one to index.
    expect(sites([store], new RegExp(`^  (?:readonly )?(?:${columns})\\b`, 'gm'))).toEqual([]);
    expect(
      sites([store], new RegExp(`^  private (?:readonly )?(?:${columns})\\b`, 'gm')).length,
    ).toBeGreaterThan(20);
    // Elsewhere no column is named on a store (`st.recType[r]`, `store.nodeFlags[n] = ...`);
    // only the transfer's plain data (`p.store`, `d.recNode`) carries them, by name, unindexed.
    const others = files.filter((f) => f.file !== 'src/dns/core/zone/store.ts');
    // (`slots` and `blocks` are left out here: other modules have tables of those names.)
    const named = columns.replace('|slots', '').replace('|blocks', '');
    expect(sites(others, new RegExp(`\\.(?:${named})\\s*\\[`, 'g'))).toEqual([]);
    // Nor through TypeScript's escape hatch for private fields (`store['recType']`).
    expect(sites(others, new RegExp(`\\[['"](?:${named})['"]\\]`, 'g'))).toEqual([]);
  });

  it('one record model: the client reads core/rr/record.ts records, not dns-packet shapes', () => {
    const client = files.filter((f) => f.file.startsWith('src/client/'));
    // dns-packet's RDATA sits under `.data`; its objects were read through casts.
    expect(sites(client, /\brdataOf\b|\.data\.\w+|\.data\)|\bdata: \{/g)).toEqual([]);
    expect(sites(client, /as \{\s*(?:order|priority|data|mname)\b|as Answer\b/g)).toEqual([]);
    // No client file imports dns-packet's record types (the client uses its
    // encoder for queries only). Query types are the project's (core/rr/types.ts QueryType).
    expect(
      sites(client, /import type \{[^}]*\b(?:Answer|Question)\b[^}]*\} from 'dns-packet'/g),
    ).toEqual([]);
    const clientAll = files.filter((f) => f.file.startsWith('src/client/'));
    expect(sites(clientAll, /\bRecordType\b/g)).toEqual([]);
    // The decoder uses no fallback decoder of another library.
    const decoder = files.find((f) => f.file === 'src/dns/core/wire/response.ts')?.text ?? '';
    expect(/fallback|dns-packet's `answer/.test(decoder)).toBe(false);
    // The DDDS's records are the model's: NaptrRecord and SrvRecord built on its fields.
    expect(sites(files, /^export (?:interface|type) NaptrRecord\b[^\n]*/gm)).toEqual([
      'src/ddds/core/naptr.ts: export type NaptrRecord = { -readonly [K in keyof NaptrData]: NaptrData[K] } & { ttl?: number };',
    ]);
    expect(sites(files, /^export (?:interface|type) SrvRecord\b[^\n]*/gm)).toEqual([
      'src/ddds/core/srv.ts: export type SrvRecord = { -readonly [K in keyof SrvData]: SrvData[K] } & { ttl?: number };',
    ]);
  });

  it('one table of type names (core/rr/types.ts): no other code -> mnemonic map', () => {
    // A name table pairs a code with its mnemonic: `[35, 'NAPTR']` or `case 35: return 'NAPTR'`.
    const tables = sites(files, /\[35, 'NAPTR'\]|case 35:\s*return 'NAPTR'|\['NAPTR', 35\]/g);
    expect(tables).toEqual([]);
    expect(sites(files, /\['NAPTR', TYPE_NAPTR\]/g).map((s) => s.split(':')[0])).toEqual([
      'src/dns/core/rr/types.ts',
    ]);
  });
});

/**
 * The results that became `Result`s (issue 19) keep their older fields for
 * outside users only: code in src reads `value` / `error`. A result is
 * followed from the variable it is stored in (`const r = parseLexUrn(...)`)
 * to the fields read on that variable.
 */
const RESULT_FUNCTIONS =
  'buildAus|parseUrn8141|parseUrn8141AllowingPipe|parseLexUrn|parseSubstitution|parseSubstitutionCached|rewrite|rewriteCompiled|parseServices|analyseLexUrn|analyseReference|toUrnAnalysis|validateRow|parseHostPort';
/** The deprecated fields: `urn`, `expr`, `output`, `via`, `step`, `query`, `row`, and the failures' own `kind`, `code`, `message`, `span`. */
const DEPRECATED_FIELDS = /^(urn|expr|output|via|kind|step|query|row|code|message|span)$/;

function deprecatedReads(files: { file: string; text: string }[]): string[] {
  const out: string[] = [];
  // A bare call (not `registry.rewrite(`), an analyser (`analyse(`, `m.analyse(`), or a loop guard's `.visit(`.
  const bound = new RegExp(
    `(?:const|let)\\s+(\\w+)\\s*=\\s*(?:(?<![\\w.])(?:${RESULT_FUNCTIONS})|(?:\\w+\\.)?analyse|[\\w.]+\\.visit)\\(`,
    'g',
  );
  for (const { file, text } of files) {
    for (const b of text.matchAll(bound)) {
      const name = b[1]!;
      // From the binding to the next binding of the same name (another function's `r`).
      const start = b.index + b[0].length;
      const next = new RegExp(`(?:const|let)\\s+${name}\\s*=`, 'g');
      next.lastIndex = start;
      const end = next.exec(text)?.index ?? text.length;
      const scope = text.slice(start, end);
      for (const m of scope.matchAll(new RegExp(`(?<![\\w.])${name}\\.(\\w+)\\b`, 'g'))) {
        if (DEPRECATED_FIELDS.test(m[1]!)) out.push(`${file}: ${m[0]}`);
      }
    }
    // The compiled record's parsed services (`c.services`), read in the step.
    for (const m of text.matchAll(/\b\w+\.services\.(code|message)\b/g))
      out.push(`${file}: ${m[0]}`);
  }
  return out;
}

describe('one failure shape: src reads value / error, not the deprecated fields', () => {
  it('no module in src reads a deprecated field of these results', () => {
    expect(deprecatedReads(sources())).toEqual([]);
  });

  it('the check finds such reads (it is not vacuous)', () => {
    const sample = [
      'const p = parseLexUrn(s); use(p.urn);',
      'const r = rewriteCompiled(c, aus); if (!r.ok) fail(r.code, r.message);',
      'const v = this.guard.visit(key); if (!v.ok) stop(v.code);',
      'const a = m.analyse(text); q = a.query;',
      'const h = parseHostPort(t); say(h.message);',
      'const n = registry.rewrite(query); use(n.query);',
      'const h = other(); use(h.message);',
      'const ok = parseLexUrn(s); use(ok.value, ok.error, ok.warnings, ok.errors);',
    ].join('\n');
    expect(deprecatedReads([{ file: 'sample.ts', text: sample }]).map((s) => s.slice(11))).toEqual([
      'p.urn',
      'r.code',
      'r.message',
      'v.code',
      'a.query',
      'h.message',
    ]);
  });
});
