/**
 * The JSON Schemas of the configuration files (`config/server.schema.json`,
 * `config/resolver.schema.json`, for editors and other tools) and the
 * loaders agree: every example configuration in `config/` is valid for
 * both, and each invalid case below is refused by both (the loader with the
 * code that names the key). The schemas are checked by Ajv, a validator not
 * written here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG, validateServerConfig } from '../../src/config/server.ts';
import { DEFAULT_RESOLVER_CONFIG, validateResolverConfig } from '../../src/config/resolver.ts';

const CONFIG = path.resolve(import.meta.dirname, '../../config');
const read = (f: string): unknown => JSON.parse(readFileSync(path.join(CONFIG, f), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
const serverSchema = ajv.compile(read('server.schema.json') as object);
const resolverSchema = ajv.compile(read('resolver.schema.json') as object);

const server = (v: unknown) => ({
  schema: serverSchema(v),
  loader: validateServerConfig(v).errors.map((e) => `${e.code} ${e.path}`),
});
const resolver = (v: unknown) => {
  const r = validateResolverConfig(v);
  return {
    schema: resolverSchema(v),
    loader: r.ok ? [] : r.issues.map((e) => `${e.code} ${e.path}`),
  };
};

describe('the example configurations are valid for the schema and the loader', () => {
  it.each(['server.json', 'server.docker.json', 'production.json'])('%s', (f) => {
    const r = server(read(f));
    expect(r.schema, JSON.stringify(serverSchema.errors)).toBe(true);
    expect(r.loader).toEqual([]);
  });
  it.each(['resolver.json', 'resolver.docker.json'])('%s', (f) => {
    const r = resolver(read(f));
    expect(r.schema, JSON.stringify(resolverSchema.errors)).toBe(true);
    expect(r.loader).toEqual([]);
  });
  it('each example names its schema, which the loaders accept', () => {
    expect((read('server.json') as Record<string, unknown>)['$schema']).toBe(
      './server.schema.json',
    );
    expect((read('resolver.json') as Record<string, unknown>)['$schema']).toBe(
      './resolver.schema.json',
    );
  });
});

/** Key paths of a configuration object, one level of nesting (`tcp.maxConnections`). */
function keyPaths(o: object): string[] {
  return Object.entries(o).flatMap(([k, v]) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? [k, ...Object.keys(v as object).map((s) => `${k}.${s}`)]
      : [k],
  );
}

/** The same for a schema's properties. */
function schemaPaths(schema: { properties: Record<string, { properties?: object }> }): string[] {
  return Object.entries(schema.properties).flatMap(([k, v]) => [
    k,
    ...Object.keys(v.properties ?? {}).map((s) => `${k}.${s}`),
  ]);
}

describe('every key the loaders know (their defaults) is in the schema', () => {
  it.each([
    ['server.schema.json', DEFAULT_SERVER_CONFIG],
    ['resolver.schema.json', DEFAULT_RESOLVER_CONFIG],
  ] as const)('%s', (file, defaults) => {
    const known = new Set(schemaPaths(read(file) as Parameters<typeof schemaPaths>[0]));
    expect(keyPaths(defaults).filter((k) => !known.has(k))).toEqual([]);
  });
});

describe('server.schema.json and validateServerConfig refuse the same things', () => {
  it.each([
    [{ listen: [] }, 'CONFIG_BAD_LISTEN listen'],
    [{ listen: ['localhost'] }, 'CONFIG_BAD_LISTEN listen[0]'],
    [{ listen: ['127.0.0.1:70000'] }, 'CONFIG_BAD_LISTEN listen[0]'],
    [{ listen: ['300.0.0.1:53'] }, 'CONFIG_BAD_LISTEN listen[0]'],
    [{ listen: ['ns.example:53'] }, 'CONFIG_BAD_LISTEN listen[0]'],
    [{ lisen: ['127.0.0.1:53'] }, 'CONFIG_UNKNOWN_KEY lisen'],
    [{ tcp: { maxConections: 3 } }, 'CONFIG_UNKNOWN_KEY tcp.maxConections'],
    [{ udp: { maxPayload: 100 } }, 'CONFIG_BAD_NUMBER udp.maxPayload'],
    [{ udp: { receiveBuffer: 1000 } }, 'CONFIG_BAD_NUMBER udp.receiveBuffer'],
    [{ udp: { receiveBuffer: 2 ** 31 } }, 'CONFIG_BAD_NUMBER udp.receiveBuffer'],
    [{ tcp: { idleTimeoutMs: 1.5 } }, 'CONFIG_BAD_NUMBER tcp.idleTimeoutMs'],
    [{ zones: [{ file: 'a.zone' }] }, 'CONFIG_BAD_ZONES zones[0]'],
    [{ watch: 'yes' }, 'CONFIG_BAD_BOOLEAN watch'],
    [{ catalogGroups: { 'a.example.': 'x"y' } }, 'CONFIG_BAD_VALUE catalogGroups.a.example.'],
    [{ catalogGroups: { 'a.example.': ['x', 'y'] } }, 'CONFIG_BAD_VALUE catalogGroups.a.example.'],
    [{ log: { level: 'loud' } }, 'CONFIG_BAD_ENUM log.level'],
    [{ cookies: { secret: 'abc' } }, 'CONFIG_BAD_COOKIE_SECRET cookies.secret'],
    [{ nsid: 'a\nb' }, 'CONFIG_BAD_TEXT nsid'],
    [{ doh: { tlsCert: 'cert.pem' } }, 'CONFIG_DOH_TLS_PAIR doh'],
    [{ doh: { allowOrigin: 'a, b' } }, 'CONFIG_BAD_TEXT doh.allowOrigin'],
    [{ dnssec: { optOut: true } }, 'CONFIG_DNSSEC_OPT_OUT dnssec.optOut'],
    [{ dnssec: { validity: 5 } }, 'CONFIG_BAD_NUMBER dnssec.validity'],
    [{ rrl: { slip: 11 } }, 'CONFIG_BAD_NUMBER rrl.slip'],
    [{ workers: 257 }, 'CONFIG_BAD_NUMBER workers'],
    [{ gcHelperNice: 20 }, 'CONFIG_BAD_NUMBER gcHelperNice'],
    [{ serial: 'bogus' }, 'CONFIG_BAD_ENUM serial'],
    [{ log: { format: 'xml' } }, 'CONFIG_BAD_ENUM log.format'],
    [{ allowEmpty: 1 }, 'CONFIG_BAD_BOOLEAN allowEmpty'],
    [{ zones: [{ origin: 'example.', primaries: [] }] }, 'CONFIG_BAD_ZONES zones[0].primaries'],
    [
      { zones: [{ origin: 'example.', primaries: ['ns.example:53'] }] },
      'CONFIG_BAD_ZONES zones[0].primaries[0]',
    ],
    [
      { zones: [{ origin: 'example.', primaries: ['192.0.2.1:53'], file: 'x' }] },
      'CONFIG_BAD_ZONES zones[0]',
    ],
    [
      { zones: [{ origin: 'example.', primaries: ['192.0.2.1:53'], maxRecords: -1 }] },
      'CONFIG_BAD_NUMBER zones[0].maxRecords',
    ],
    [{ transfer: { inMaxSeconds: 0 } }, 'CONFIG_BAD_NUMBER transfer.inMaxSeconds'],
    [{ transfer: { notifySource: 'nope' } }, 'CONFIG_BAD_LISTEN transfer.notifySource'],
    [
      { zones: [{ file: 'x', origin: 'x.', notifySource: 'ns.example' }] },
      'CONFIG_BAD_LISTEN zones[0].notifySource',
    ],
    [{ secondaries: [{ address: '192.0.2.1:53', zones: [] }] }, 'CONFIG_BAD_LISTEN secondaries[0]'],
    [
      { secondaryCatalogs: [{ origin: 'cat.example.', primaries: [] }] },
      'CONFIG_BAD_ZONES secondaryCatalogs[0].primaries',
    ],
  ])('%j: %s', (input, code) => {
    const r = server(input);
    expect(r.loader).toContain(code);
    expect(r.schema).toBe(false);
  });
  it.each([0, 4096, 4 << 20])('udp.receiveBuffer %d (0: the system default) passes both', (n) => {
    const r = server({ udp: { receiveBuffer: n } });
    expect(r.loader).toEqual([]);
    expect(r.schema, JSON.stringify(serverSchema.errors)).toBe(true);
    expect(validateServerConfig({ udp: { receiveBuffer: n } }).config.udp.receiveBuffer).toBe(n);
  });
  it('a valid non-default configuration passes both', () => {
    const input = {
      listen: ['[::1]:5353', '127.0.0.1:0'],
      zones: [
        'zones',
        { file: 'x.txt', origin: 'example.' },
        { origin: 'lex.example.', primaries: ['192.0.2.1:53', '[2001:db8::1]:53 key xfr-key'] },
        {
          origin: 'big.example.',
          primaries: ['192.0.2.1:53'],
          maxRecords: 5_000_000,
          maxSeconds: 3600,
        },
        { file: 'y.txt', origin: 'y.example.', notifySource: '2001:db8::53' },
      ],
      secondaries: ['192.0.2.7:53', { address: '192.0.2.8:53', zones: ['y.example', 'example.'] }],
      secondaryCatalogs: [{ origin: 'catalog.example.', primaries: ['192.0.2.1:53 key xfr-key'] }],
      transfer: {
        notifySource: '192.0.2.53',
        inMaxRecords: 100_000,
        inMaxBytes: 0,
        inMaxSeconds: 60,
      },
      doh: { listen: ['127.0.0.1:8443'], tlsCert: 'c.pem', tlsKey: 'k.pem' },
      dnssec: { keys: 'keys', nsec3: true, optOut: true, validity: 864000, refresh: 86400 },
      cookies: { enabled: false, secret: '0123456789abcdef0123456789ABCDEF' },
      nsid: 'ns1',
    };
    const r = server(input);
    expect(r.loader).toEqual([]);
    expect(r.schema, JSON.stringify(serverSchema.errors)).toBe(true);
  });
});

describe('resolver.schema.json and validateResolverConfig refuse the same things', () => {
  it.each([
    [{ listen: [] }, 'CONFIG_BAD_LISTEN listen'],
    [{ listen: ['127.0.0.1:99999'] }, 'CONFIG_BAD_VALUE listen[0]'],
    [{ workers: -1 }, 'CONFIG_BAD_VALUE workers'],
    [{ workers: 'two' }, 'CONFIG_BAD_TYPE workers'],
    [{ catalogue: '' }, 'CONFIG_BAD_VALUE catalogue'],
    [{ catalog: 'x' }, 'CONFIG_UNKNOWN_KEY catalog'],
    [{ cache: { admission: 'always' } }, 'CONFIG_BAD_VALUE cache.admission'],
    [{ matching: { minScore: 101 } }, 'CONFIG_BAD_VALUE matching.minScore'],
    [{ cors: { maxAge: '1' } }, 'CONFIG_BAD_TYPE cors.maxAge'],
    [{ log: { requests: 1 } }, 'CONFIG_BAD_TYPE log.requests'],
    [{ cacheControl: { found: 'a\nb' } }, 'CONFIG_BAD_VALUE cacheControl.found'],
    [{ page: { enabled: 'yes' } }, 'CONFIG_BAD_TYPE page.enabled'],
  ])('%j: %s', (input, code) => {
    const r = resolver(input);
    expect(r.loader).toContain(code);
    expect(r.schema).toBe(false);
  });
  it('comments (// keys) and a non-default configuration pass both', () => {
    const input = {
      '//': 'a comment',
      listen: ['[::]:8080'],
      workers: 0,
      cache: { '// entries': 'fewer', entries: 10, admission: 'first-request' },
    };
    const r = resolver(input);
    expect(r.loader).toEqual([]);
    expect(r.schema, JSON.stringify(resolverSchema.errors)).toBe(true);
  });
});
