/**
 * The sample deployment `lexroute dev` starts, described by `config/dev.json`:
 * which DNS server instance (loopback address and port) serves which zone
 * files, where the jurisdiction resolvers listen, and the sample URNs to
 * suggest. Validation with stable codes and the JSON path of the problem;
 * unknown keys are errors (a typo must not pass silently).
 */
import { parseListen, type ListenAddress } from '../config/server.ts';

export interface DevZone {
  /** Zone file, relative to the working directory. */
  readonly file: string;
  /** The zone apex, when the file name does not say it (`root.zone` serves `.`). */
  readonly origin?: string;
}

export interface DevDnsServer {
  readonly name: string;
  readonly listen: ListenAddress;
  readonly zones: readonly DevZone[];
}

export interface DevResolver {
  readonly name: string;
  readonly listen: ListenAddress;
}

export interface DevSample {
  readonly urn: string;
  /** What it shows, printed next to the command. */
  readonly note: string;
  /** Print this one with --trace. */
  readonly trace: boolean;
}

export interface DevConfig {
  readonly dns: readonly DevDnsServer[];
  readonly resolvers: readonly DevResolver[];
  /** Rows the resolvers' catalogue is built from at each start (JSON lines or CSV). */
  readonly sampleCatalogue: string;
  /** The server iterative resolution starts at (`--root`); default: the first DNS server. */
  readonly root: ListenAddress;
  readonly samples: readonly DevSample[];
}

export interface DevConfigIssue {
  readonly code:
    | 'DEV_CONFIG_NOT_OBJECT'
    | 'DEV_CONFIG_UNKNOWN_KEY'
    | 'DEV_CONFIG_MISSING'
    | 'DEV_CONFIG_BAD_TYPE'
    | 'DEV_CONFIG_BAD_LISTEN'
    | 'DEV_CONFIG_DUPLICATE';
  /** JSON path, e.g. `dns[1].zones[0].origin`. */
  readonly path: string;
  readonly message: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Validate the parsed `config/dev.json`. */
export function validateDevConfig(
  input: unknown,
): { ok: true; config: DevConfig } | { ok: false; issues: DevConfigIssue[] } {
  const issues: DevConfigIssue[] = [];
  const issue = (code: DevConfigIssue['code'], path: string, message: string) =>
    void issues.push({ code, path, message });
  if (!isObject(input)) {
    return {
      ok: false,
      issues: [
        { code: 'DEV_CONFIG_NOT_OBJECT', path: '', message: 'the file must hold a JSON object' },
      ],
    };
  }
  const known = (obj: Record<string, unknown>, path: string, keys: readonly string[]) => {
    for (const k of Object.keys(obj)) {
      if (k === '$comment' || k.startsWith('//')) continue;
      if (!keys.includes(k)) {
        issue('DEV_CONFIG_UNKNOWN_KEY', path ? `${path}.${k}` : k, `unknown key "${k}"`);
      }
    }
  };
  known(input, '', ['dns', 'resolvers', 'sampleCatalogue', 'root', 'samples']);

  const str = (v: unknown, path: string): string | undefined => {
    if (v === undefined) {
      issue('DEV_CONFIG_MISSING', path, `${path} is required`);
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      issue('DEV_CONFIG_BAD_TYPE', path, `${path} must be a non-empty string`);
      return undefined;
    }
    return v;
  };
  const listen = (v: unknown, path: string): ListenAddress | undefined => {
    const s = str(v, path);
    if (s === undefined) return undefined;
    const r = parseListen(s);
    if (typeof r === 'string') {
      issue('DEV_CONFIG_BAD_LISTEN', path, `${path}: ${r}`);
      return undefined;
    }
    return r;
  };
  const list = (v: unknown, path: string): unknown[] => {
    if (!Array.isArray(v) || v.length === 0) {
      issue(
        v === undefined ? 'DEV_CONFIG_MISSING' : 'DEV_CONFIG_BAD_TYPE',
        path,
        `${path} must be a non-empty array`,
      );
      return [];
    }
    return v;
  };

  const names = new Set<string>();
  const endpoints = new Set<string>();
  const unique = (name: string | undefined, l: ListenAddress | undefined, path: string) => {
    if (name !== undefined) {
      if (names.has(name))
        issue('DEV_CONFIG_DUPLICATE', `${path}.name`, `name "${name}" is used twice`);
      names.add(name);
    }
    if (l !== undefined) {
      const key = `${l.host}:${l.port}`;
      if (l.port !== 0 && endpoints.has(key)) {
        issue('DEV_CONFIG_DUPLICATE', `${path}.listen`, `${key} is used twice`);
      }
      endpoints.add(key);
    }
  };

  const dns: DevDnsServer[] = [];
  list(input.dns, 'dns').forEach((d, i) => {
    const p = `dns[${i}]`;
    if (!isObject(d)) return issue('DEV_CONFIG_BAD_TYPE', p, `${p} must be an object`);
    known(d, p, ['name', 'listen', 'zones']);
    const name = str(d.name, `${p}.name`);
    const l = listen(d.listen, `${p}.listen`);
    unique(name, l, p);
    const zones: DevZone[] = [];
    list(d.zones, `${p}.zones`).forEach((z, j) => {
      const zp = `${p}.zones[${j}]`;
      if (typeof z === 'string' && z !== '') zones.push({ file: z });
      else if (isObject(z)) {
        known(z, zp, ['file', 'origin']);
        const file = str(z.file, `${zp}.file`);
        const origin = z.origin === undefined ? undefined : str(z.origin, `${zp}.origin`);
        if (file !== undefined) zones.push(origin !== undefined ? { file, origin } : { file });
      } else issue('DEV_CONFIG_BAD_TYPE', zp, `${zp} must be a file name or {"file", "origin"}`);
    });
    if (name !== undefined && l !== undefined) dns.push({ name, listen: l, zones });
  });

  const resolvers: DevResolver[] = [];
  list(input.resolvers, 'resolvers').forEach((r, i) => {
    const p = `resolvers[${i}]`;
    if (!isObject(r)) return issue('DEV_CONFIG_BAD_TYPE', p, `${p} must be an object`);
    known(r, p, ['name', 'listen']);
    const name = str(r.name, `${p}.name`);
    const l = listen(r.listen, `${p}.listen`);
    unique(name, l, p);
    if (name !== undefined && l !== undefined) resolvers.push({ name, listen: l });
  });

  const sampleCatalogue = str(input.sampleCatalogue, 'sampleCatalogue');
  const root = input.root === undefined ? dns[0]?.listen : listen(input.root, 'root');

  const samples: DevSample[] = [];
  if (input.samples !== undefined) {
    list(input.samples, 'samples').forEach((s, i) => {
      const p = `samples[${i}]`;
      if (!isObject(s)) return issue('DEV_CONFIG_BAD_TYPE', p, `${p} must be an object`);
      known(s, p, ['urn', 'note', 'trace']);
      const urn = str(s.urn, `${p}.urn`);
      const note = s.note === undefined ? '' : (str(s.note, `${p}.note`) ?? '');
      if (s.trace !== undefined && typeof s.trace !== 'boolean') {
        issue('DEV_CONFIG_BAD_TYPE', `${p}.trace`, `${p}.trace must be true or false`);
      }
      if (urn !== undefined) samples.push({ urn, note, trace: s.trace === true });
    });
  }

  if (issues.length > 0 || sampleCatalogue === undefined || root === undefined) {
    return { ok: false, issues };
  }
  return { ok: true, config: { dns, resolvers, sampleCatalogue, root, samples } };
}

/** `host:port`, with brackets for IPv6. */
export function formatListen(l: ListenAddress): string {
  return l.host.includes(':') ? `[${l.host}]:${l.port}` : `${l.host}:${l.port}`;
}
