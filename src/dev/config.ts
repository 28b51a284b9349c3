/**
 * The sample deployment of `config/dev.json`: DNS servers and their zones,
 * the resolvers, sample URNs. Checked with stable codes and JSON paths;
 * unknown keys are errors (a typo must not pass silently).
 */
import type { ListenAddress } from '../config/server.ts';
import { parseHostPort, type HostPortError } from '../kit/core/host-port.ts';

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
  /** What the address parser found, for `DEV_CONFIG_BAD_LISTEN` (`HOST_PORT_*`). */
  readonly cause?: HostPortError;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The checks of one validation run, gathering its issues. */
class DevChecker {
  readonly issues: DevConfigIssue[] = [];
  readonly #names = new Set<string>();
  readonly #endpoints = new Set<string>();

  issue(code: DevConfigIssue['code'], path: string, message: string, cause?: HostPortError): void {
    this.issues.push(cause ? { code, path, message, cause } : { code, path, message });
  }

  /** Unknown keys are errors (`$comment` and `//…` keys excepted). */
  known(obj: Record<string, unknown>, path: string, keys: readonly string[]): void {
    for (const k of Object.keys(obj)) {
      if (k === '$comment' || k.startsWith('//')) continue;
      if (!keys.includes(k)) {
        this.issue('DEV_CONFIG_UNKNOWN_KEY', path ? `${path}.${k}` : k, `unknown key "${k}"`);
      }
    }
  }

  str(v: unknown, path: string): string | undefined {
    if (v === undefined) {
      this.issue('DEV_CONFIG_MISSING', path, `${path} is required`);
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      this.issue('DEV_CONFIG_BAD_TYPE', path, `${path} must be a non-empty string`);
      return undefined;
    }
    return v;
  }

  listen(v: unknown, path: string): ListenAddress | undefined {
    const s = this.str(v, path);
    if (s === undefined) return undefined;
    const r = parseHostPort(s);
    if (!r.ok) {
      this.issue('DEV_CONFIG_BAD_LISTEN', path, `${path}: ${r.error.message}`, r.error);
      return undefined;
    }
    return { host: r.value.host, port: r.value.port };
  }

  list(v: unknown, path: string): unknown[] {
    if (!Array.isArray(v) || v.length === 0) {
      this.issue(
        v === undefined ? 'DEV_CONFIG_MISSING' : 'DEV_CONFIG_BAD_TYPE',
        path,
        `${path} must be a non-empty array`,
      );
      return [];
    }
    return v;
  }

  /** Names are unique across servers and resolvers, and so are fixed endpoints. */
  unique(name: string | undefined, l: ListenAddress | undefined, path: string): void {
    if (name !== undefined) {
      if (this.#names.has(name))
        this.issue('DEV_CONFIG_DUPLICATE', `${path}.name`, `name "${name}" is used twice`);
      this.#names.add(name);
    }
    if (l !== undefined) {
      const key = `${l.host}:${l.port}`;
      if (l.port !== 0 && this.#endpoints.has(key)) {
        this.issue('DEV_CONFIG_DUPLICATE', `${path}.listen`, `${key} is used twice`);
      }
      this.#endpoints.add(key);
    }
  }
}

/** Validate the parsed `config/dev.json`. */
export function validateDevConfig(
  input: unknown,
): { ok: true; config: DevConfig } | { ok: false; issues: DevConfigIssue[] } {
  if (!isObject(input)) {
    return {
      ok: false,
      issues: [
        { code: 'DEV_CONFIG_NOT_OBJECT', path: '', message: 'the file must hold a JSON object' },
      ],
    };
  }
  const c = new DevChecker();
  c.known(input, '', ['dns', 'resolvers', 'sampleCatalogue', 'root', 'samples']);
  const dns = devDnsServers(c, input.dns);
  const resolvers = devResolvers(c, input.resolvers);
  const sampleCatalogue = c.str(input.sampleCatalogue, 'sampleCatalogue');
  const root = input.root === undefined ? dns[0]?.listen : c.listen(input.root, 'root');
  const samples = input.samples === undefined ? [] : devSamples(c, input.samples);
  if (c.issues.length > 0 || sampleCatalogue === undefined || root === undefined) {
    return { ok: false, issues: c.issues };
  }
  return { ok: true, config: { dns, resolvers, sampleCatalogue, root, samples } };
}

function devDnsServers(c: DevChecker, value: unknown): DevDnsServer[] {
  const dns: DevDnsServer[] = [];
  c.list(value, 'dns').forEach((d, i) => {
    const p = `dns[${i}]`;
    if (!isObject(d)) return c.issue('DEV_CONFIG_BAD_TYPE', p, `${p} must be an object`);
    c.known(d, p, ['name', 'listen', 'zones']);
    const name = c.str(d.name, `${p}.name`);
    const l = c.listen(d.listen, `${p}.listen`);
    c.unique(name, l, p);
    const zones = devZones(c, d.zones, `${p}.zones`);
    if (name !== undefined && l !== undefined) dns.push({ name, listen: l, zones });
  });
  return dns;
}

/** A server's zones: file names, or `{"file", "origin"}`. */
function devZones(c: DevChecker, value: unknown, path: string): DevZone[] {
  const zones: DevZone[] = [];
  c.list(value, path).forEach((z, j) => {
    const zp = `${path}[${j}]`;
    if (typeof z === 'string' && z !== '') zones.push({ file: z });
    else if (isObject(z)) {
      c.known(z, zp, ['file', 'origin']);
      const file = c.str(z.file, `${zp}.file`);
      const origin = z.origin === undefined ? undefined : c.str(z.origin, `${zp}.origin`);
      if (file !== undefined) zones.push(origin !== undefined ? { file, origin } : { file });
    } else c.issue('DEV_CONFIG_BAD_TYPE', zp, `${zp} must be a file name or {"file", "origin"}`);
  });
  return zones;
}

function devResolvers(c: DevChecker, value: unknown): DevResolver[] {
  const resolvers: DevResolver[] = [];
  c.list(value, 'resolvers').forEach((r, i) => {
    const p = `resolvers[${i}]`;
    if (!isObject(r)) return c.issue('DEV_CONFIG_BAD_TYPE', p, `${p} must be an object`);
    c.known(r, p, ['name', 'listen']);
    const name = c.str(r.name, `${p}.name`);
    const l = c.listen(r.listen, `${p}.listen`);
    c.unique(name, l, p);
    if (name !== undefined && l !== undefined) resolvers.push({ name, listen: l });
  });
  return resolvers;
}

function devSamples(c: DevChecker, value: unknown): DevSample[] {
  const samples: DevSample[] = [];
  c.list(value, 'samples').forEach((s, i) => {
    const p = `samples[${i}]`;
    if (!isObject(s)) return c.issue('DEV_CONFIG_BAD_TYPE', p, `${p} must be an object`);
    c.known(s, p, ['urn', 'note', 'trace']);
    const urn = c.str(s.urn, `${p}.urn`);
    const note = s.note === undefined ? '' : (c.str(s.note, `${p}.note`) ?? '');
    if (s.trace !== undefined && typeof s.trace !== 'boolean') {
      c.issue('DEV_CONFIG_BAD_TYPE', `${p}.trace`, `${p}.trace must be true or false`);
    }
    if (urn !== undefined) samples.push({ urn, note, trace: s.trace === true });
  });
  return samples;
}

/** `host:port`, with brackets for IPv6. */
export function formatListen(l: ListenAddress): string {
  return l.host.includes(':') ? `[${l.host}]:${l.port}` : `${l.host}:${l.port}`;
}
