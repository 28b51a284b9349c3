/**
 * Reading a routing table (YAML 1.2 or JSON) into `core/model.ts`, every
 * problem at its line and column; the schema is checked by hand so each
 * message names the key and the fix.
 */
import { absoluteLowerName } from '../kit/core/names.ts';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node, type Pair } from 'yaml';
import {
  KNOWN_SERVICES,
  THTTP_PROTOCOLS,
  type NameServer,
  type Route,
  type RouteTarget,
  type RoutingTable,
  type Soa,
  type SrvTarget,
  type TableDiagnostic,
  type TablePosition,
} from './core/model.ts';
import { exampleUrn, parsePrefix, type LexPrefix } from './core/prefix.ts';
import { validateRoutes } from './core/validate.ts';
import { unroutedExample } from './core/build.ts';
import { isAbsoluteUri } from '../ddds/core/naptr.ts';
import { normalizeLexUrn } from '../urn/core/index.ts';
import type { TableCode } from './core/codes.ts';

export type ReadTableResult =
  | { readonly ok: true; readonly table: RoutingTable; readonly warnings: TableDiagnostic[] }
  | { readonly ok: false; readonly diagnostics: TableDiagnostic[] };

class TableError extends Error {
  readonly code: TableCode;
  readonly position: TablePosition;
  constructor(code: TableCode, message: string, position: TablePosition) {
    super(message);
    this.code = code;
    this.position = position;
  }
}

const TOP_KEYS = ['zone', 'ttl', 'soa', 'ns', 'owner', 'comment', 'index', 'routes', 'default'];
const ROUTE_KEYS = [
  'prefix',
  'zone',
  'url',
  'srv',
  'host',
  'handoff',
  'flag',
  'services',
  'protocol',
  'targets',
  'address',
  'ns',
  'ds',
  'example',
  'comment',
];
const TARGET_KEYS = ['zone', 'url', 'srv', 'host', 'handoff'] as const;
const FLAG_OF: Record<(typeof TARGET_KEYS)[number], string> = {
  zone: '',
  url: 'U',
  srv: 'S',
  host: 'A',
  handoff: 'P',
};

/** A domain name as tables write targets: LDH labels (and `_` for SRV owners). */
const NAME =
  /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.)*[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?\.?$/i;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const IPV6 = /^[0-9a-f:.]+$/i;

class Reader {
  private readonly lc: LineCounter;
  constructor(lc: LineCounter) {
    this.lc = lc;
  }

  pos(node: Node | Pair | null | undefined, fallback?: TablePosition): TablePosition {
    const n = node && 'range' in node ? node : node && 'key' in node ? (node.key as Node) : null;
    const r = n?.range;
    if (!r) return fallback ?? { line: 1, column: 1 };
    const p = this.lc.linePos(r[0]);
    return { line: p.line, column: p.col };
  }

  fail(code: TableCode, message: string, node: Node | Pair | null | undefined): never {
    throw new TableError(code, message, this.pos(node));
  }

  /** The pairs of a mapping, unknown keys refused. */
  mapping(node: unknown, what: string, allowed: readonly string[]): Map<string, Pair<Node, Node>> {
    if (!isMap(node))
      this.fail('TABLE_NOT_MAPPING', `${what} must be a mapping (key: value)`, node as Node);
    const out = new Map<string, Pair<Node, Node>>();
    for (const pair of node.items as Pair<Node, Node>[]) {
      const k = isScalar(pair.key) ? String(pair.key.value) : undefined;
      if (k === undefined || !allowed.includes(k)) {
        this.fail(
          'TABLE_UNKNOWN_KEY',
          `unknown key ${JSON.stringify(k ?? '?')} in ${what} (known: ${allowed.join(', ')})`,
          pair.key,
        );
      }
      out.set(k, pair);
    }
    return out;
  }

  string(pair: Pair<Node, Node>, what: string): string {
    const v = pair.value;
    if (!isScalar(v) || v.value === null || typeof v.value === 'object') {
      this.fail('TABLE_NOT_STRING', `${what} must be a string`, v ?? pair);
    }
    return String(v.value);
  }

  boolean(pair: Pair<Node, Node>, what: string): boolean {
    const v = pair.value;
    if (!isScalar(v) || typeof v.value !== 'boolean') {
      this.fail('TABLE_NOT_BOOLEAN', `${what} must be true or false`, v ?? pair);
    }
    return v.value as boolean;
  }

  integer(pair: Pair<Node, Node>, what: string, min: number, max: number): number {
    const v = pair.value;
    const n = isScalar(v) ? Number(v.value) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) {
      this.fail('TABLE_BAD_NUMBER', `${what} must be an integer from ${min} to ${max}`, v ?? pair);
    }
    return n;
  }

  /** A list of strings: a sequence, or one string (`+` or space separated for services). */
  strings(pair: Pair<Node, Node>, what: string): { value: string; node: Node }[] {
    const v = pair.value;
    if (isSeq(v)) {
      return (v.items as Node[]).map((item) => {
        if (!isScalar(item) || item.value === null)
          this.fail('TABLE_NOT_STRING', `each ${what} must be a string`, item);
        return { value: String(item.value), node: item };
      });
    }
    const s = this.string(pair, what);
    return s
      .split(/[\s+,]+/)
      .filter((x) => x !== '')
      .map((value) => ({ value, node: v! }));
  }

  name(pair: Pair<Node, Node>, what: string): string {
    const s = this.string(pair, what).trim();
    if (!NAME.test(s) || s.replace(/\.$/, '').length > 253) {
      this.fail(
        'TABLE_BAD_NAME',
        `${what} ${JSON.stringify(s)} is not a domain name (letters, digits, '-', '_' in dot-separated labels of 1 to 63; write an IDN as its A-label)`,
        pair.value,
      );
    }
    return absoluteLowerName(s);
  }

  addresses(pair: Pair<Node, Node> | undefined): string[] {
    if (!pair) return [];
    return this.strings(pair, 'address').map(({ value, node }) => {
      if (!IPV4.test(value) && !(value.includes(':') && IPV6.test(value))) {
        this.fail(
          'TABLE_BAD_ADDRESS',
          `${JSON.stringify(value)} is not an IPv4 or IPv6 address`,
          node,
        );
      }
      return value.toLowerCase();
    });
  }
}

function readSoa(
  r: Reader,
  pair: Pair<Node, Node> | undefined,
  zone: string,
  ns: readonly NameServer[],
): Soa {
  const defaults: Soa = {
    mname: ns[0]?.name ?? `ns1.${zone}`,
    rname: `hostmaster.${zone}`,
    serial: 1,
    refresh: 7200,
    retry: 3600,
    expire: 1209600,
    minimum: 600,
  };
  if (!pair) return defaults;
  const m = r.mapping(pair.value, 'soa', Object.keys(defaults));
  const out: Record<string, string | number> = { ...defaults };
  for (const [k, p] of m) {
    out[k] =
      k === 'mname' || k === 'rname'
        ? r.name(p, `soa ${k}`)
        : r.integer(p, `soa ${k}`, 0, 0xffffffff);
  }
  return out as unknown as Soa;
}

function readNs(
  r: Reader,
  pair: Pair<Node, Node> | undefined,
  top: Node,
  zone: string,
): NameServer[] {
  if (!pair || !isSeq(pair.value) || pair.value.items.length === 0) {
    r.fail(
      'TABLE_NO_NS',
      'ns must list the name servers of the zone (- { name: ns1.example., address: 192.0.2.1 })',
      pair?.value ?? top,
    );
  }
  return (pair.value.items as Node[]).map((item) => {
    let ns: NameServer;
    if (isScalar(item)) {
      ns = {
        name: r.name({ key: item, value: item } as unknown as Pair<Node, Node>, 'ns'),
        addresses: [],
      };
    } else {
      const m = r.mapping(item, 'an ns entry', ['name', 'address']);
      const name = m.get('name');
      if (!name) r.fail('TABLE_MISSING_KEY', 'an ns entry needs a name', item);
      ns = { name: r.name(name, 'ns name'), addresses: r.addresses(m.get('address')) };
    }
    if (ns.addresses.length === 0 && (ns.name === zone || ns.name.endsWith(`.${zone}`))) {
      r.fail(
        'TABLE_NO_GLUE',
        `the name server ${ns.name} is inside the zone: give its address (glue), e.g. { name: ${ns.name}, address: 192.0.2.1 }`,
        item,
      );
    }
    return ns;
  });
}

/** The route's resolution services (N2L when it names none). */
function readServices(r: Reader, pair: Pair<Node, Node> | undefined): string[] {
  if (!pair) return ['N2L'];
  const list = r.strings(pair, 'service');
  if (list.length === 0)
    r.fail('TABLE_NO_SERVICES', 'services is empty (e.g. [N2L, N2Ls, N2C])', pair.value);
  return list.map(({ value, node }) => {
    const known = KNOWN_SERVICES.find((s) => s.toLowerCase() === value.toLowerCase());
    if (!known) {
      r.fail(
        'TABLE_UNKNOWN_SERVICE',
        `unknown resolution service ${JSON.stringify(value)} (RFC 2483: ${KNOWN_SERVICES.join(', ')})`,
        node,
      );
    }
    return known;
  });
}

function readProtocol(
  r: Reader,
  pair: Pair<Node, Node> | undefined,
  fallback: string,
  allowed?: readonly string[],
): string {
  if (!pair) return fallback;
  const p = r.string(pair, 'protocol');
  if (!/^[A-Za-z][A-Za-z0-9]{0,31}$/.test(p)) {
    r.fail(
      'TABLE_BAD_PROTOCOL',
      `protocol ${JSON.stringify(p)} must be a letter then at most 31 letters or digits (RFC 3404 section 4.4)`,
      pair.value,
    );
  }
  if (allowed && !allowed.includes(p.toLowerCase())) {
    r.fail(
      'TABLE_UNKNOWN_PROTOCOL',
      `protocol ${JSON.stringify(p)}: an S or A route speaks ${allowed.join(', ')} (the THTTP protocols of RFC 3404 section 4.4)`,
      pair.value,
    );
  }
  return p.toLowerCase();
}

function readUrl(r: Reader, pair: Pair<Node, Node>): { template: string; scheme: string } {
  const t = r.string(pair, 'url').trim();
  if (!t.includes('{urn}')) {
    r.fail(
      'TABLE_URL_NO_URN',
      `the URL template ${JSON.stringify(t)} has no {urn}: the resolver would not learn which URN is asked (write e.g. http://host/uri-res/{service}?{urn})`,
      pair.value,
    );
  }
  const sample = t
    .replaceAll('{service}', 'N2L')
    .replaceAll('{urn}', 'urn:lex:xx:a:b:2000-01-01;1');
  if (!isAbsoluteUri(sample) || t.includes('\\')) {
    r.fail(
      'TABLE_BAD_URL',
      `${JSON.stringify(t)} is not an absolute URI template (ASCII URI characters, no fragment, no backslash)`,
      pair.value,
    );
  }
  return { template: t, scheme: sample.slice(0, sample.indexOf(':')).toLowerCase() };
}

function readSrvTargets(r: Reader, pair: Pair<Node, Node> | undefined): SrvTarget[] {
  if (!pair) return [];
  if (!isSeq(pair.value))
    r.fail(
      'TABLE_NOT_LIST',
      'targets must be a list of { target, port, priority, weight, address }',
      pair.value,
    );
  return (pair.value.items as Node[]).map((item) => {
    const m = r.mapping(item, 'an SRV target', ['target', 'port', 'priority', 'weight', 'address']);
    const target = m.get('target');
    const port = m.get('port');
    if (!target || !port) r.fail('TABLE_MISSING_KEY', 'an SRV target needs target and port', item);
    const pr = m.get('priority');
    const w = m.get('weight');
    return {
      target: r.name(target, 'SRV target'),
      port: r.integer(port, 'port', 0, 65535),
      priority: pr ? r.integer(pr, 'priority', 0, 65535) : 10,
      weight: w ? r.integer(w, 'weight', 0, 65535) : 0,
      addresses: r.addresses(m.get('address')),
    };
  });
}

function checkFlag(
  r: Reader,
  m: Map<string, Pair<Node, Node>>,
  key: (typeof TARGET_KEYS)[number],
): void {
  const flagPair = m.get('flag');
  if (flagPair) {
    const f =
      flagPair.value && isScalar(flagPair.value) && flagPair.value.value === null
        ? ''
        : r.string(flagPair, 'flag').trim();
    if (!['', 'U', 'S', 'A', 'P'].includes(f.toUpperCase())) {
      r.fail(
        'TABLE_UNKNOWN_FLAG',
        `unknown flag ${JSON.stringify(f)}: a LEX route is "" (delegation), U, S, A or P (RFC 3404 section 4.3)`,
        flagPair.value,
      );
    }
    if (f.toUpperCase() !== FLAG_OF[key]) {
      r.fail(
        'TABLE_FLAG_MISMATCH',
        `flag ${JSON.stringify(f)} does not fit a ${key} target (which is flag ${JSON.stringify(FLAG_OF[key])})`,
        flagPair.value,
      );
    }
  }
}

/** A DS record's RDATA as written in a zone file: key tag, algorithm, digest type, digest (hex). */
const DS_TEXT = /^\d{1,5}\s+\d{1,3}\s+\d{1,3}\s+[0-9a-fA-F\s]+$/;

/** A delegation: the next zone, and the cut to write below the table's zone (`ns`, `ds`; issue 30). */
function readZoneTarget(
  r: Reader,
  m: Map<string, Pair<Node, Node>>,
  pair: Pair<Node, Node>,
): RouteTarget {
  const name = r.name(pair, 'zone');
  const nsPair = m.get('ns');
  const dsPair = m.get('ds');
  const ns = nsPair ? readNs(r, nsPair, pair.value as Node, name) : undefined;
  const ds = dsPair
    ? r.strings(dsPair, 'ds').map(({ value, node }) => {
        const text = value.trim().replace(/\s+/g, ' ');
        if (!DS_TEXT.test(text))
          r.fail(
            'TABLE_BAD_DS',
            `not a DS record's data (key tag, algorithm, digest type, hex digest): ${value}`,
            node,
          );
        return text;
      })
    : undefined;
  if (ds !== undefined && ns === undefined)
    r.fail(
      'TABLE_DS_WITHOUT_NS',
      'ds is written at a zone cut: give the child zone ns too',
      dsPair!.key as Node,
    );
  return { kind: 'zone', name, ...(ns ? { ns } : {}), ...(ds ? { ds } : {}) };
}

function readTarget(r: Reader, m: Map<string, Pair<Node, Node>>, node: Node): RouteTarget {
  const given = TARGET_KEYS.filter((k) => m.has(k));
  if (given.length !== 1) {
    r.fail(
      given.length === 0 ? 'TABLE_NO_TARGET' : 'TABLE_SEVERAL_TARGETS',
      `a route has exactly one target: zone (delegation), url (U), srv (S), host (A) or handoff (P)${given.length > 1 ? `; this one has ${given.join(' and ')}` : ''}`,
      given.length > 1 ? m.get(given[1]!) : node,
    );
  }
  const key = given[0]!;
  checkFlag(r, m, key);
  const pair = m.get(key)!;
  const services = m.get('services');
  const protocol = m.get('protocol');
  const onlyFor = (k: string, kinds: string[]) => {
    if (m.has(k) && !kinds.includes(key))
      r.fail('TABLE_KEY_NOT_HERE', `${k} has no meaning for a ${key} route`, m.get(k)!.key);
  };
  onlyFor('services', ['url', 'srv', 'host', 'handoff']);
  onlyFor('protocol', ['url', 'srv', 'host', 'handoff']);
  onlyFor('targets', ['srv']);
  onlyFor('address', ['host']);
  onlyFor('ns', ['zone']);
  onlyFor('ds', ['zone']);
  switch (key) {
    case 'zone':
      return readZoneTarget(r, m, pair);
    case 'url': {
      const { template, scheme } = readUrl(r, pair);
      const list = readServices(r, services);
      if (list.length > 1 && !template.includes('{service}')) {
        r.fail(
          'TABLE_URL_NO_SERVICE',
          `the URL template serves ${list.join(', ')} but has no {service}: every service would get the same URL`,
          pair.value,
        );
      }
      return { kind: 'U', template, services: list, protocol: readProtocol(r, protocol, scheme) };
    }
    case 'srv':
    case 'host': {
      const offer = {
        name: r.name(pair, key),
        services: readServices(r, services),
        protocol: readProtocol(r, protocol, 'thttp', THTTP_PROTOCOLS),
      };
      return key === 'srv'
        ? { kind: 'S', ...offer, srv: readSrvTargets(r, m.get('targets')) }
        : { kind: 'A', ...offer, addresses: r.addresses(m.get('address')) };
    }
    default: {
      if (!protocol)
        r.fail(
          'TABLE_NO_PROTOCOL',
          'a handoff route names the protocol to hand over to (protocol: z3950)',
          pair.key,
        );
      const output = r.string(pair, 'handoff').trim();
      if (output === '' || /[\s\\]/.test(output))
        r.fail(
          'TABLE_BAD_HANDOFF',
          'the handoff output is one word without spaces or backslashes ({urn} copies the URN)',
          pair.value,
        );
      return {
        kind: 'P',
        output,
        services: readServices(r, services),
        protocol: readProtocol(r, protocol, ''),
      };
    }
  }
}

function readRoute(r: Reader, node: Node, isDefault: boolean): Route {
  const m = r.mapping(node, isDefault ? 'default' : 'a route', ROUTE_KEYS);
  let prefix: LexPrefix | undefined;
  const pp = m.get('prefix');
  if (isDefault && pp)
    r.fail(
      'TABLE_DEFAULT_PREFIX',
      'the default route takes every other URN: it has no prefix',
      pp.key,
    );
  if (!isDefault) {
    if (!pp)
      r.fail('TABLE_MISSING_KEY', 'a route needs a prefix (e.g. prefix: br;sao.paulo)', node);
    const text = r.string(pp, 'prefix');
    const p = parsePrefix(text.trim());
    if (!p.ok) {
      const at = r.pos(pp.value);
      const quoted = isScalar(pp.value) && pp.value.type !== 'PLAIN' ? 1 : 0;
      throw new TableError(p.error.code, p.error.message, {
        line: at.line,
        column: at.column + quoted + p.error.offset,
      });
    }
    prefix = p.value;
  }
  const target = readTarget(r, m, node);
  const ep = m.get('example');
  let example = prefix ? exampleUrn(prefix) : '';
  if (ep) {
    const n = normalizeLexUrn(r.string(ep, 'example').trim());
    if (!n.ok)
      r.fail(
        'TABLE_BAD_EXAMPLE',
        `example is not a LEX URN: ${n.error.code} ${n.error.message}`,
        ep.value,
      );
    example = n.canonical;
  }
  const cp = m.get('comment');
  return {
    prefix,
    target,
    example,
    ...(cp ? { comment: r.string(cp, 'comment') } : {}),
    position: r.pos(node),
  };
}

function readDefault(
  r: Reader,
  pair: Pair<Node, Node> | undefined,
  top: Node,
): Route | null | 'missing' {
  if (!pair) return 'missing';
  const v = pair.value;
  if (isScalar(v) && typeof v.value === 'string' && v.value.trim().toLowerCase() === 'none')
    return null;
  if (!isMap(v))
    r.fail(
      'TABLE_BAD_DEFAULT',
      'default is a target mapping (url:, zone:, srv:, host:, handoff:) or the word none',
      v ?? top,
    );
  return readRoute(r, v, true);
}

/** Read one part of the table, its mistake kept in `errors`: one run reports every part's. */
function attempt<T>(errors: TableError[], read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    if (!(e instanceof TableError)) throw e;
    errors.push(e);
    return undefined;
  }
}

/** The table, or every mistake found in its parts (each part read on its own). */
function readTop(r: Reader, top: Node): RoutingTable | TableError[] {
  const errors: TableError[] = [];
  const m = attempt(errors, () => r.mapping(top, 'the table', TOP_KEYS));
  if (!m) return errors;
  const zp = m.get('zone');
  const zone = attempt(errors, () => {
    if (!zp) r.fail('TABLE_MISSING_KEY', 'the table needs zone: <apex name>', top);
    return r.name(zp, 'zone');
  });
  const ns =
    zone === undefined ? undefined : attempt(errors, () => readNs(r, m.get('ns'), top, zone));
  const rp = m.get('routes');
  let routes: (Route | undefined)[] = [];
  if (!rp || !isSeq(rp.value)) {
    attempt(errors, () =>
      r.fail(
        'TABLE_NO_ROUTES',
        'routes must be a list (it may be empty: routes: [])',
        rp?.value ?? top,
      ),
    );
  } else {
    routes = (rp.value.items as Node[]).map((n) => attempt(errors, () => readRoute(r, n, false)));
  }
  const dflt = attempt(errors, () => {
    const d = readDefault(r, m.get('default'), top);
    if (d !== 'missing') return d;
    return r.fail(
      'TABLE_NO_DEFAULT',
      'say what happens to every other URN: default: { url: ... } (or zone:, srv:, host:, handoff:), or default: none',
      top,
    );
  });
  const tp = m.get('ttl');
  const op = m.get('owner');
  const cp = m.get('comment');
  const ttl = attempt(errors, () => (tp ? r.integer(tp, 'ttl', 0, 0x7fffffff) : 3600));
  const owner = attempt(errors, () => (op ? r.name(op, 'owner') : zone));
  const comment = attempt(errors, () => (cp ? r.string(cp, 'comment') : undefined));
  const ip = m.get('index');
  const index = attempt(errors, () => (ip ? r.boolean(ip, 'index') : false));
  const soa =
    ns === undefined ? undefined : attempt(errors, () => readSoa(r, m.get('soa'), zone!, ns));
  if (errors.length > 0) return errors;
  const read = routes as Route[];
  return {
    zone: zone!,
    ttl: ttl!,
    soa: soa!,
    ns: ns!,
    owner: owner!,
    routes: read,
    // The default's example, unless the table gives one: a URN that no route takes.
    default: dflt && dflt.example === '' ? { ...dflt, example: unroutedExample(read) } : dflt!,
    ...(comment !== undefined ? { comment } : {}),
    ...(index ? { index, indexPosition: r.pos(ip) } : {}),
  };
}

/** Read and check a routing table from its text (`file` names it in messages). */
export function readRoutingTable(text: string): ReadTableResult {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: true, prettyErrors: false });
  const error = (code: TableCode, message: string, position: TablePosition): TableDiagnostic => ({
    code,
    message,
    severity: 'error',
    position,
  });
  if (doc.errors.length > 0) {
    const diagnostics = doc.errors.map((e) => {
      const p = lc.linePos(e.pos[0]);
      const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      return error(`TABLE_YAML_${e.code}`, message, { line: p.line, column: p.col });
    });
    return { ok: false, diagnostics };
  }
  const table = readTop(new Reader(lc), doc.contents as Node);
  if (Array.isArray(table))
    return { ok: false, diagnostics: table.map((e) => error(e.code, e.message, e.position)) };
  const found = validateRoutes(table, (u) => {
    const n = normalizeLexUrn(u);
    return n.ok ? n.canonical : u;
  });
  const errors = found.filter((d) => d.severity === 'error');
  if (errors.length > 0) return { ok: false, diagnostics: found };
  return { ok: true, table, warnings: found };
}

export function formatTableDiagnostic(file: string, d: TableDiagnostic): string {
  return `${file}:${d.position.line}:${d.position.column}: ${d.code} ${d.severity === 'warning' ? 'warning: ' : ''}${d.message}`;
}
