/**
 * One failure shape (issue 19): the public results that kept older fields
 * (`parseUrn8141`/`parseLexUrn`, `normalizeLexUrn`, `parseSubstitution`,
 * `rewrite`, `parseServices`, `DddsLoopGuard.visit`, the URN analyser,
 * `validateRow`, `parseHostPort`) are each a `Result<T, E>`: `value` on
 * success, `error` with a typed `code` and a `message` on failure. Since
 * 1.0 the older own fields are gone: `{...r}`, JSON and deep equality show
 * `ok` and `value` / `error` (plus `warnings`, `errors`, `canonical` where a
 * result documents them).
 *
 * The first block is checked by the compiler (`npm run typecheck`): each
 * result is assignable to `Result<T, E>` and `r.ok ? r.value : r.error.code`
 * compiles with the area's closed code union.
 */
import { describe, expect, it } from 'vitest';
import type { Result } from '../src/kit/core/result.ts';
import {
  normalizeLexUrn,
  parseLexUrn,
  parseUrn8141,
  type LexUrn,
  type Urn8141,
  type UrnCode,
  type UrnDiagnostic,
} from '../src/urn/core/index.ts';
import {
  buildAus,
  DddsLoopGuard,
  parseServices,
  parseSubstitution,
  rewrite,
  type Aus,
  type LoopCode,
  type NaptrRecord,
  type ParsedServices,
  type RewriteFailure,
  type RewriteOutput,
  type SubstError,
  type SubstErrorCode,
  type SubstExpr,
} from '../src/ddds/core/index.ts';
import type { ResolutionCode } from '../src/ddds/core/codes.ts';
import {
  analyseLexUrn,
  analyseReference,
  validateRow,
  type CatalogueRow,
  type MatchQuery,
  type RowError,
  type UrnAnalysisError,
} from '../src/resolver/core/index.ts';
import type { RowErrorCode } from '../src/resolver/core/codes.ts';
import {
  HOST_PORT_CODES,
  parseHostPort,
  type HostPort,
  type HostPortCode,
  type HostPortError,
} from '../src/kit/core/host-port.ts';
import { validateServerConfig } from '../src/config/server.ts';
import { validateDevConfig } from '../src/dev/config.ts';
import { validateResolverConfig } from '../src/config/resolver.ts';
import { parseServerAddress } from '../src/client/server-address.ts';
import { ClientError } from '../src/client/errors.ts';
import type { Failure } from '../src/kit/core/result.ts';

// ------------------------------------------------------------ type level

/** Compiles only when `r` is a `Result<T, E>`. */
function asResult<T, E extends { readonly code: string }>(r: Result<T, E>): Result<T, E> {
  return r;
}

/** `r.ok ? r.value : r.error.code` for every result, with its closed code union. */
export function typeLevel(text: string, record: NaptrRecord): void {
  const urn: Urn8141 | UrnCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<Urn8141, UrnDiagnostic>(parseUrn8141(text)),
  );
  const lex: LexUrn | UrnCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<LexUrn, UrnDiagnostic>(parseLexUrn(text)),
  );
  const norm: string | UrnCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<string, UrnDiagnostic>(normalizeLexUrn(text)),
  );
  const subst: SubstExpr | SubstErrorCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<SubstExpr, SubstError>(parseSubstitution(text)),
  );
  const rw: RewriteOutput | ResolutionCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<RewriteOutput, RewriteFailure>(rewrite(record, text)),
  );
  const sv: ParsedServices | 'NAPTR_SERVICES_SYNTAX' = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<ParsedServices, Failure<'NAPTR_SERVICES_SYNTAX'>>(parseServices(text)),
  );
  const step: number | LoopCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<number, Failure<LoopCode>>(new DddsLoopGuard().visit(text)),
  );
  const q: MatchQuery | UrnCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<MatchQuery, UrnAnalysisError>(analyseLexUrn(text)),
  );
  const row: CatalogueRow | RowErrorCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<CatalogueRow, RowError>(validateRow({ urn: text }, analyseLexUrn)),
  );
  const hp: HostPort | HostPortCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<HostPort, HostPortError>(parseHostPort(text)),
  );
  const aus: Aus | UrnCode = ((r) => (r.ok ? r.value : r.error.code))(
    asResult<Aus, UrnDiagnostic>(buildAus(text)),
  );
  void [urn, lex, norm, subst, rw, sv, step, q, row, hp, aus];
}

// ------------------------------------------------------------ run time

const URN = 'urn:lex:it:stato:legge:2006-05-14;22';
const plain = (x: unknown): unknown => JSON.parse(JSON.stringify(x));

function naptr(fields: Partial<NaptrRecord>): NaptrRecord {
  return {
    order: 100,
    preference: 10,
    flags: '',
    services: 'N2L',
    regexp: '',
    replacement: '.',
    ...fields,
  };
}

describe('URN parsers: value is the tree, error the first of errors', () => {
  it('parseUrn8141 and parseLexUrn', () => {
    const a = parseUrn8141(URN);
    expect(a.ok && a.value.nid.text).toBe('lex');
    expect(Object.keys(a)).toEqual(['ok', 'value']);
    const b = parseLexUrn(URN);
    expect(b.ok && b.value.input).toBe(URN);
    expect(Object.keys(b)).toEqual(['ok', 'value', 'warnings']);
    expect(plain(b)).toEqual({ ok: true, value: plain(b.ok && b.value), warnings: [] });

    const bad = parseLexUrn('urn:lex:it:stato:legge:2006-13-14;22');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error).toBe(bad.errors[0]);
    expect(bad.errors).toHaveLength(1);
    expect(bad.error).toMatchObject({ code: 'LEX_BAD_DATE', span: { start: 23 } });
    expect(plain(bad)).toEqual({ ok: false, errors: [plain(bad.error)] });

    const not8141 = parseUrn8141('urn:x');
    expect(!not8141.ok && not8141.error.code).toBe('URN_BAD_NID');
  });

  it('normalizeLexUrn: value is the canonical text', () => {
    const n = normalizeLexUrn('URN:LEX:IT:Stato:Legge:2006-05-14;22');
    expect(n.ok && n.value).toBe(URN);
    expect(n.ok && n.value === n.canonical).toBe(true);
    const bad = normalizeLexUrn('urn:lex:it');
    expect(!bad.ok && bad.error === bad.errors[0] && bad.error.code).toMatch(/^LEX_/);
  });
});

describe('DDDS results', () => {
  it('parseSubstitution: value is the expression', () => {
    const r = parseSubstitution('!^(.*)$!\\1!');
    expect(r.ok && r.value.maxBackref).toBe(1);
    expect(Object.keys(r)).toEqual(['ok', 'value']);
    const bad = parseSubstitution('!a!b');
    expect(!bad.ok && bad.error.code).toBe('SUBST_DELIMITER_COUNT');
  });

  it('rewrite: value is {output, via}; error is {code, message, kind}', () => {
    const r = rewrite(naptr({ replacement: 'lex.example.' }), URN);
    expect(r.ok && r.value).toEqual({ output: 'lex.example.', via: 'replacement' });
    expect(r.ok && r.value).toBe(r.ok && r.value); // built once
    expect(r).toEqual({ ok: true, value: { output: 'lex.example.', via: 'replacement' } });
    expect({ ...r }).toEqual({ ok: true, value: { output: 'lex.example.', via: 'replacement' } });

    const re = rewrite(
      naptr({ regexp: '!^urn:lex:(it);.*$!\\1.lex.!', replacement: '.' }),
      'urn:lex:it;x',
    );
    expect(re.ok && re.value).toEqual({ output: 'it.lex.', via: 'regexp' });

    const none = rewrite(naptr({ regexp: '!^urn:lex:fr.*$!x!', replacement: '.' }), URN);
    expect(none.ok).toBe(false);
    if (none.ok) return;
    expect(none.error).toMatchObject({ code: 'NAPTR_NO_MATCH', kind: 'no-match' });
    expect(none.error.message).not.toBe('');
    expect(plain(none)).toEqual({
      ok: false,
      error: { kind: 'no-match', code: 'NAPTR_NO_MATCH', message: none.error.message },
    });
    const both = rewrite(naptr({ regexp: '!a!b!', replacement: 'x.' }), URN);
    expect(!both.ok && both.error.code).toBe('NAPTR_BOTH_FIELDS');
    expect(!both.ok && both.error.kind).toBe('malformed');
  });

  it('buildAus: error is errors[0], with the text its span refers to', () => {
    const ok = buildAus(URN);
    expect(ok.ok && ok.value.aus).toBe(URN);
    const bad = buildAus('urn:lex:it:stato:legge:2006-13-14;22');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error).toBe(bad.errors[0]);
    expect(bad.error.code).toBe('LEX_BAD_DATE');
    expect(Object.keys(bad)).toEqual(['ok', 'errors', 'text']);
  });

  it('parseServices: error is {code, message}', () => {
    const ok = parseServices('thttp+N2L');
    expect(ok.ok && ok.value).toEqual({ protocol: 'thttp', services: ['N2L'] });
    const bad = parseServices('x-y+N2L');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error.code).toBe('NAPTR_SERVICES_SYNTAX');
    expect(bad.error.message).toMatch(/do not parse/);
    expect(plain(bad)).toEqual({
      ok: false,
      error: { code: 'NAPTR_SERVICES_SYNTAX', message: bad.error.message },
    });
  });

  it('DddsLoopGuard.visit: value is the step; error the loop or the limit', () => {
    const g = new DddsLoopGuard(2);
    const first = g.visit('a.example');
    expect(first.ok && first.value).toBe(1);
    expect(first).toEqual({ ok: true, value: 1 });
    const loop = g.visit('A.example.');
    expect(!loop.ok && loop.error).toEqual({
      code: 'DDDS_LOOP',
      message: !loop.ok && loop.error.message,
    });
    g.visit('b.example');
    const limit = g.visit('c.example');
    expect(!limit.ok && limit.error.code).toBe('DDDS_STEP_LIMIT');
  });
});

describe('catalogue results', () => {
  it('the analyser: value is the query; error has code, message and span', () => {
    const a = analyseLexUrn(URN);
    expect(a.ok && a.value.workUrn).toBe(URN);
    expect(Object.keys(a)).toEqual(['ok', 'value']);
    const bad = analyseReference('urn:lex:it:stato:legge:2006-13-14;22');
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.error).toMatchObject({ code: 'LEX_BAD_DATE' });
    expect(bad.error.message).not.toBe('');
    expect(bad.error.span?.start).toBe(23);
    expect(Object.keys(bad)).toEqual(['ok', 'error']);
  });

  it('validateRow: value is the row', () => {
    const r = validateRow({ urn: URN, url: 'https://example.org/l' }, analyseLexUrn);
    expect(r.ok && r.value.item).toEqual({
      url: 'https://example.org/l',
      priority: 10,
    });
    expect(Object.keys(r)).toEqual(['ok', 'value']);
    const bad = validateRow({ urn: URN, url: 'ftp://x' }, analyseLexUrn);
    expect(!bad.ok && bad.error.code).toBe('ROW_BAD_URL');
  });
});

describe('parseHostPort: a stable code per refusal, reported by its callers', () => {
  it('each code', () => {
    const cases: [string, HostPortCode][] = [
      ['[1.2.3.4]:53', 'HOST_PORT_BAD_IPV6'],
      ['::1:53x', 'HOST_PORT_SYNTAX'],
      ['127.0.0.1', 'HOST_PORT_MISSING_PORT'],
      ['ns.example:53', 'HOST_PORT_BAD_HOST'],
      ['127.0.0.1:65536', 'HOST_PORT_BAD_PORT'],
    ];
    for (const [text, code] of cases) {
      const r = parseHostPort(text);
      expect([text, !r.ok && r.error.code]).toEqual([text, code]);
      expect(!r.ok && r.error.message).toMatch(/\S/);
      expect(Object.keys(r)).toEqual(['ok', 'error']);
    }
    expect(new Set(cases.map((c) => c[1]))).toEqual(new Set(Object.keys(HOST_PORT_CODES)));
    const ok = parseHostPort('[::1]:53');
    expect(ok.ok && ok.value).toEqual({ host: '::1', port: 53 });
  });

  it('server.json: CONFIG_BAD_LISTEN with the address code as its cause', () => {
    const { errors } = validateServerConfig({ listen: ['127.0.0.1:53', 'ns.example:53'] });
    expect(errors).toEqual([
      {
        code: 'CONFIG_BAD_LISTEN',
        path: 'listen[1]',
        message: expect.stringContaining('listen[1]: "ns.example" is not an IP address'),
        cause: { code: 'HOST_PORT_BAD_HOST', message: expect.any(String) },
      },
    ]);
    const doh = validateServerConfig({ doh: { listen: ['127.0.0.1:99999'] } }).errors;
    expect(doh.map((e) => [e.code, e.path, e.cause?.code])).toEqual([
      ['CONFIG_BAD_LISTEN', 'doh.listen[0]', 'HOST_PORT_BAD_PORT'],
    ]);
  });

  it('resolver.json: the issue carries the address code', () => {
    const r = validateResolverConfig({ listen: ['127.0.0.1'] });
    expect(!r.ok && r.issues.map((i) => [i.code, i.path, i.cause?.code])).toEqual([
      ['CONFIG_BAD_VALUE', 'listen[0]', 'HOST_PORT_MISSING_PORT'],
    ]);
  });

  it("a zone's NOTIFY targets and dev.json: the address code as the cause", () => {
    const { errors } = validateServerConfig({
      zones: [{ file: 'a.zone', origin: 'a.', secondaries: ['127.0.0.1:53', '192.0.2.1'] }],
    });
    expect(errors.map((e) => [e.code, e.path, e.cause?.code])).toEqual([
      ['CONFIG_BAD_LISTEN', 'zones[0].secondaries[1]', 'HOST_PORT_MISSING_PORT'],
    ]);
    const dev = validateDevConfig({
      dns: [{ name: 'root', listen: '127.0.0.1:70000', zones: ['root.zone'] }],
      resolvers: [{ name: 'br', listen: '127.0.0.1:8300' }],
      sampleCatalogue: 'rows.jsonl',
    });
    expect(!dev.ok && dev.issues.map((i) => [i.code, i.path, i.cause?.code])).toEqual([
      ['DEV_CONFIG_BAD_LISTEN', 'dns[0].listen', 'HOST_PORT_BAD_PORT'],
    ]);
  });

  it('the client: BAD_SERVER_ADDRESS with the address failure as its cause', () => {
    let thrown: unknown;
    try {
      parseServerAddress('ns.example:53');
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ClientError);
    expect((thrown as ClientError).code).toBe('BAD_SERVER_ADDRESS');
    expect((thrown as ClientError).cause).toMatchObject({ code: 'HOST_PORT_BAD_HOST' });
  });
});
