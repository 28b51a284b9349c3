/**
 * Configuration of `lexroute resolver`: schema, defaults (`config/resolver.json`)
 * and validation of the parsed JSON. Keys starting with `//` are comments.
 */
import { parseHostPort, type HostPortError } from '../kit/core/host-port.ts';
import { isObject } from './checks.ts';

export interface ResolverConfig {
  /** `ADDR:PORT` addresses to listen on (`[::1]:8080` for IPv6), a list as in server.json. */
  readonly listen: readonly string[];
  /** The SQLite catalogue file (relative to the working directory) or a `postgres://` URL. */
  readonly catalogue: string;
  /** The rows `--sample` serves (from a fresh catalogue in a temporary folder). */
  readonly sampleCatalogue: string;
  /** Resolver processes sharing the listening port and the catalogue; 0: one per core. */
  readonly workers: number;
  /** A folder of LexML vocabularies whose registries rewrite acronyms before matching; '' none. */
  readonly registry: string;
  /** Cache-Control header values per outcome. */
  readonly cacheControl: {
    /** 303/302 redirects and 200 answers; 300; 404; 400 and other errors. */
    readonly found: string;
    readonly ambiguous: string;
    readonly notFound: string;
    readonly error: string;
  };
  readonly cors: {
    /** Access-Control-Allow-Origin; empty string: no CORS headers. */
    readonly allowOrigin: string;
    /** Access-Control-Max-Age of preflight answers, seconds. */
    readonly maxAge: number;
  };
  /** The resolution page at `/` (to browsers; `resolver-http/page.ts`). */
  readonly page: {
    /** Serve it (default true); off, `/` is the plain-text index for everyone. */
    readonly enabled: boolean;
    /** The DNS over HTTPS URL the page fills in ('' : the person types one). */
    readonly doh: string;
  };
  readonly matching: {
    /** Candidates scoring below this are not offered (0-100). */
    readonly minScore: number;
    /** The best candidate wins only if the next one is more than this many points behind. */
    readonly ambiguityMargin: number;
    /** At most this many candidates in a 300 list. */
    readonly maxCandidates: number;
  };
  readonly log: {
    /** One JSON line per request on standard error. */
    readonly requests: boolean;
    /** Log one request in this many (1: all); a `requests` summary line counts the others. */
    readonly sample: number;
    /** How often (ms) the summary line of unlogged requests is written. */
    readonly summaryMs: number;
  };
  readonly cache: {
    /** Answers kept in memory (least recently used dropped first); 0 turns the cache off. */
    readonly entries: number;
    /** At most this many bytes of answers (bodies, headers and keys) in memory. */
    readonly maxBytes: number;
    /** How often (ms) to check whether the catalogue file changed; a change empties the cache. */
    readonly checkMs: number;
    /** `second-request`: keep an answer from its second request on (one-off URNs evict nothing). */
    readonly admission: 'second-request' | 'first-request';
  };
}

export const DEFAULT_RESOLVER_CONFIG: ResolverConfig = {
  listen: ['127.0.0.1:8080'],
  catalogue: 'data/catalogue.sqlite',
  sampleCatalogue: 'data/sample-catalogue.jsonl',
  workers: 1,
  registry: '',
  cacheControl: {
    found: 'public, max-age=3600',
    ambiguous: 'public, max-age=300',
    notFound: 'public, max-age=60',
    error: 'no-store',
  },
  cors: { allowOrigin: '*', maxAge: 86400 },
  page: { enabled: true, doh: '' },
  matching: { minScore: 50, ambiguityMargin: 10, maxCandidates: 20 },
  log: { requests: true, sample: 1, summaryMs: 60_000 },
  cache: {
    entries: 10_000,
    maxBytes: 64 * 1024 * 1024,
    checkMs: 1_000,
    admission: 'second-request',
  },
};

/** A configuration problem: the JSON path of the value and what is wrong. */
export interface ConfigIssue {
  readonly code:
    'CONFIG_UNKNOWN_KEY' | 'CONFIG_BAD_TYPE' | 'CONFIG_BAD_VALUE' | 'CONFIG_BAD_LISTEN';
  /** `matching.minScore` */
  readonly path: string;
  readonly message: string;
  /** What the address parser found, for a bad `ADDR:PORT` (`HOST_PORT_*`). */
  readonly cause?: HostPortError;
}

export type ConfigResult =
  | { readonly ok: true; readonly config: ResolverConfig }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

type Check = (value: unknown, path: string) => ConfigIssue | null;

const str =
  (allowEmpty = false): Check =>
  (v, path) =>
    typeof v !== 'string'
      ? { code: 'CONFIG_BAD_TYPE', path, message: `${path} must be a string` }
      : !allowEmpty && v === ''
        ? { code: 'CONFIG_BAD_VALUE', path, message: `${path} must not be empty` }
        : /[\r\n]/.test(v)
          ? { code: 'CONFIG_BAD_VALUE', path, message: `${path} must not contain line breaks` }
          : null;

const int =
  (min: number, max: number): Check =>
  (v, path) =>
    typeof v !== 'number' || !Number.isInteger(v)
      ? { code: 'CONFIG_BAD_TYPE', path, message: `${path} must be an integer` }
      : v < min || v > max
        ? {
            code: 'CONFIG_BAD_VALUE',
            path,
            message: `${path} must be from ${min} to ${max}, got ${v}`,
          }
        : null;

const oneOf =
  (values: readonly string[]): Check =>
  (v, path) =>
    typeof v !== 'string' || !values.includes(v)
      ? {
          code: typeof v === 'string' ? 'CONFIG_BAD_VALUE' : 'CONFIG_BAD_TYPE',
          path,
          message: `${path} must be one of ${values.map((x) => `"${x}"`).join(', ')}, got ${JSON.stringify(v)}`,
        }
      : null;

const bool: Check = (v, path) =>
  typeof v !== 'boolean'
    ? { code: 'CONFIG_BAD_TYPE', path, message: `${path} must be true or false` }
    : null;

const oneListen: Check = (v, path) => {
  const s = str()(v, path);
  if (s) return s;
  const r = parseHostPort(v as string);
  return r.ok
    ? null
    : {
        code: 'CONFIG_BAD_VALUE',
        path,
        message: `${path} must be ADDR:PORT (e.g. 127.0.0.1:8080), got '${String(v)}'`,
        cause: r.error,
      };
};

/** A non-empty list of ADDR:PORT (as server.json). */
const listen: Check = (v, path) => {
  if (!Array.isArray(v) || v.length === 0) {
    return {
      code: 'CONFIG_BAD_LISTEN',
      path,
      message: `${path} must be a non-empty list of "ADDR:PORT" (e.g. ["127.0.0.1:8080", "[::1]:8080"])`,
    };
  }
  for (let i = 0; i < v.length; i++) {
    const issue = oneListen(v[i], `${path}[${i}]`);
    if (issue) return issue;
  }
  return null;
};

type Schema = { readonly [key: string]: Check | Schema };

const SCHEMA: Schema = {
  listen,
  catalogue: str(),
  sampleCatalogue: str(),
  workers: int(0, 256),
  registry: str(true),
  cacheControl: { found: str(true), ambiguous: str(true), notFound: str(true), error: str(true) },
  cors: { allowOrigin: str(true), maxAge: int(0, 31_536_000) },
  page: { enabled: bool, doh: str(true) },
  matching: { minScore: int(0, 100), ambiguityMargin: int(0, 100), maxCandidates: int(1, 1000) },
  log: { requests: bool, sample: int(1, 1_000_000), summaryMs: int(100, 3_600_000) },
  cache: {
    entries: int(0, 10_000_000),
    maxBytes: int(0, 64 * 1024 * 1024 * 1024),
    checkMs: int(0, 3_600_000),
    admission: oneOf(['second-request', 'first-request']),
  },
};

/** Merge a parsed JSON value over the defaults, reporting every problem (not only the first). */
export function validateResolverConfig(
  input: unknown,
  overrides: Partial<Pick<ResolverConfig, 'listen' | 'catalogue' | 'workers' | 'registry'>> = {},
): ConfigResult {
  if (!isObject(input)) {
    const message = 'the configuration must be a JSON object';
    return { ok: false, issues: [{ code: 'CONFIG_BAD_TYPE', path: '(root)', message }] };
  }
  const issues: ConfigIssue[] = [];
  const out = structuredClone(DEFAULT_RESOLVER_CONFIG) as unknown as Record<string, unknown>;
  merge(issues, '', SCHEMA, input, out);
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const check = SCHEMA[key] as Check;
    const issue = check(value, `--${key}`);
    if (issue) issues.push(issue);
    else out[key] = value;
  }
  return issues.length > 0
    ? { ok: false, issues }
    : { ok: true, config: out as unknown as ResolverConfig };
}

/** The keys of `value` checked against `schema` and copied over their defaults in `target` (`prefix`: the section). */
function merge(
  issues: ConfigIssue[],
  prefix: string,
  schema: Schema,
  value: Record<string, unknown>,
  target: Record<string, unknown>,
): void {
  for (const [key, v] of Object.entries(value)) {
    // Comments, and the JSON Schema an editor checks the file against (config/resolver.schema.json).
    if (key.startsWith('//') || (prefix === '' && key === '$schema')) continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const check = schema[key];
    if (!check) {
      const message = `unknown key '${path}' (keys: ${Object.keys(schema).join(', ')})`;
      issues.push({ code: 'CONFIG_UNKNOWN_KEY', path, message });
    } else if (typeof check !== 'function') {
      if (isObject(v)) merge(issues, path, check, v, target[key] as Record<string, unknown>);
      else issues.push({ code: 'CONFIG_BAD_TYPE', path, message: `${path} must be an object` });
    } else {
      const issue = check(v, path);
      if (issue) issues.push(issue);
      else target[key] = v;
    }
  }
}
