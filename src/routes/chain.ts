/**
 * `lexroute chain check`: resolve many URNs (or jurisdiction codes) through a
 * delegation chain and report where each ends: `ZoneChain` (--zones DIR) in
 * process with the server's lookup and the client's step, `ClientChain`
 * (--server, --root) with the real client. A resolver is named by its URL
 * template, `S <srv name>`, `A <host>` or `P <protocol> <output>`.
 */
import { absoluteLowerName } from '../kit/core/names.ts';
import { DddsLoopGuard, buildAus, dddsStep } from '../ddds/core/index.ts';
import type { NaptrRecord } from '../ddds/core/step.ts';
import type { Zone } from '../dns/core/zone/model.ts';
import {
  DEFAULT_ZONE_LOOKUP_OPTIONS,
  findZone,
  findZoneFor,
  indexZone,
  type IndexedZone,
  lookupInZone,
  makeZoneSet,
  type ZoneLookupOptions,
  type ZoneSet,
} from '../authority/core/zone-lookup.ts';
import { TYPE_A, TYPE_AAAA, TYPE_NAPTR, TYPE_NS, TYPE_SRV } from '../dns/core/rr/types.ts';
import { naptrFields } from '../ddds/core/lint/naptr-lint.ts';
import { nameKey } from '../dns/core/wire/name.ts';
import { LexClient, ResolveError } from '../client/resolve.ts';
import type { ResolutionCode } from '../ddds/core/codes.ts';
import type { RouteCode } from './core/codes.ts';
import type { Failure } from '../kit/core/result.ts';

/** A chain check's failure: a resolution's code, or CHAIN_NO_ZONE (a route code). */
export type ChainCode = ResolutionCode | RouteCode;

export interface ChainOutcome {
  /** The line of the list as given (a URN or a jurisdiction code). */
  readonly input: string;
  readonly urn: string;
  readonly kind: 'resolved' | 'handoff' | 'failed';
  /** Resolver identity (see above), for resolved and handoff outcomes. */
  readonly resolver?: string;
  /** The NAPTR keys asked, in order. */
  readonly path: readonly string[];
  readonly code?: ChainCode;
  readonly message?: string;
}

export interface ChainWalker {
  resolve(input: string, urn: string): ChainOutcome | Promise<ChainOutcome>;
  close(): Promise<void>;
}

/** The DDDS key of the step's output, for a U rule the URL with the AUS as `{urn}`. */
function resolverName(flag: string, output: string, aus: string, protocol?: string): string {
  if (flag === 'U') return output.split(aus).join('{urn}');
  if (flag === 'P') return `P ${protocol ?? ''} ${output}`;
  return `${flag} ${absoluteLowerName(output)}`;
}

/** The loaded zones of a directory, walked in process. */
export class ZoneChain implements ChainWalker {
  private readonly set: ZoneSet;
  private readonly options: ZoneLookupOptions;
  /** The NAPTR records of each key asked, decoded once (the same objects for every URN). */
  private readonly naptrs = new Map<string, NaptrRecord[] | Failure<ChainCode>>();

  /** Each zone's missing cut in its parent zone (false: none missing), by origin key. */
  private readonly cuts = new Map<string, Failure<ChainCode> | false>();

  constructor(zones: readonly Zone[]) {
    this.set = makeZoneSet(zones.map((z) => indexZone(z)));
    this.options = {
      ...DEFAULT_ZONE_LOOKUP_OPTIONS,
      zoneFor: (k, t) => findZoneFor(this.set, k, t),
    };
  }

  /**
   * CHAIN_NO_CUT (once per zone) when `zone` lies below a zone of the folder
   * without a cut for it: a server holding only the parent answers NXDOMAIN.
   */
  private missingCut(zone: IndexedZone): Failure<ChainCode> | undefined {
    let found = this.cuts.get(zone.originKey);
    if (found === undefined) {
      const key = zone.originKey;
      const parent =
        key.length > 1 ? findZone(this.set, key.slice(1 + key.charCodeAt(0))) : undefined;
      const delegated =
        parent === undefined ||
        lookupInZone(parent, key, TYPE_NS, this.options).kind === 'referral';
      found = delegated
        ? false
        : {
            code: 'CHAIN_NO_CUT',
            message: `${zone.zone.origin} is served here, but its parent zone ${parent!.zone.origin} has no NS for it: a server holding only ${parent!.zone.origin} answers NXDOMAIN`,
          };
      this.cuts.set(key, found);
    }
    return found === false ? undefined : found;
  }

  /** The records of one RRset, or a failure code. */
  private rrset(name: string, type: number): { records: Uint8Array[] } | Failure<ChainCode> {
    const key = nameKey(name);
    const zone = findZoneFor(this.set, key, type);
    if (!zone) return { code: 'CHAIN_NO_ZONE', message: `no zone of the folder holds ${name}` };
    const cut = this.missingCut(zone);
    if (cut !== undefined) return cut;
    const r = lookupInZone(zone, key, type, this.options);
    if (r.kind === 'answer') {
      const last = r.answer[r.answer.length - 1]!;
      return { records: last.rrset.records.map((x) => x.rdata) };
    }
    if (r.kind === 'nxdomain') return { code: 'DNS_NXDOMAIN', message: `${name} does not exist` };
    if (r.kind === 'nodata') return { code: 'DNS_NODATA', message: `${name} has no such record` };
    if (r.kind === 'referral') {
      return {
        code: 'CHAIN_NO_ZONE',
        message: `${name} is delegated to a zone that is not in the folder`,
      };
    }
    return { code: 'DNS_SERVFAIL', message: `${name}: ${r.kind}` };
  }

  private naptrRecords(key: string): NaptrRecord[] | Failure<ChainCode> {
    let got = this.naptrs.get(key);
    if (got === undefined) {
      const rr = this.rrset(key, TYPE_NAPTR);
      if ('code' in rr) got = rr;
      else {
        got = [];
        for (const rd of rr.records) {
          const f = naptrFields(rd);
          if (f) got.push(f);
        }
      }
      if (this.naptrs.size < 100_000) this.naptrs.set(key, got);
    }
    return got;
  }

  resolve(input: string, urn: string): ChainOutcome {
    const path: string[] = [];
    const fail = (code: ChainCode, message: string): ChainOutcome => ({
      input,
      urn,
      kind: 'failed',
      path,
      code,
      message,
    });
    const a = buildAus(urn);
    if (!a.ok) return fail('URN_INVALID', a.error.message);
    const aus = a.value.aus;
    let key = a.value.firstKey;
    const guard = new DddsLoopGuard();
    for (;;) {
      const visit = guard.visit(key);
      if (!visit.ok) return fail(visit.error.code, visit.error.message);
      path.push(key);
      const records = this.naptrRecords(key);
      if ('code' in records) return fail(records.code, records.message);
      const o = dddsStep({ aus, key, records, service: 'N2L' }).outcome;
      if (o.kind === 'failure') return fail(o.code, o.message);
      if (o.kind === 'next') {
        key = o.key;
        continue;
      }
      if (o.kind === 'handoff') {
        return {
          input,
          urn,
          kind: 'handoff',
          path,
          resolver: resolverName('P', o.output, aus, o.protocol),
        };
      }
      if (o.flag !== 'U') {
        const check = this.rrset(o.output, o.flag === 'S' ? TYPE_SRV : TYPE_A);
        const six = o.flag === 'A' && 'code' in check ? this.rrset(o.output, TYPE_AAAA) : check;
        if ('code' in check && 'code' in six) {
          return fail(o.flag === 'S' ? 'SRV_NONE' : 'ADDRESS_NONE', check.message);
        }
      }
      return { input, urn, kind: 'resolved', path, resolver: resolverName(o.flag, o.output, aus) };
    }
  }

  async close(): Promise<void> {}
}

/** The real client over the network (stub server or iterative from a root). */
export class ClientChain implements ChainWalker {
  private readonly client: LexClient;
  constructor(options: { server?: string; root?: string; timeoutMs?: number }) {
    this.client = new LexClient({
      ...(options.server !== undefined ? { servers: [options.server] } : {}),
      ...(options.root !== undefined ? { root: options.root } : {}),
      timeoutMs: options.timeoutMs ?? 2000,
    });
  }

  async resolve(input: string, urn: string): Promise<ChainOutcome> {
    try {
      const r = await this.client.resolve(urn, { noHttp: true });
      const steps = r.trace.steps.filter((s) => s.kind === 'naptr');
      const path = steps.map((s) => s.key);
      const aus = r.trace.aus ?? urn;
      if (r.kind === 'handoff') {
        return {
          input,
          urn,
          kind: 'handoff',
          path,
          resolver: resolverName('P', r.handoff.output, aus, r.handoff.protocol),
        };
      }
      const last = steps[steps.length - 1]?.outcome;
      const resolver =
        last?.kind === 'terminal'
          ? resolverName(last.flag, last.output, aus)
          : r.resolverUrl.split(aus).join('{urn}');
      return { input, urn, kind: 'resolved', path, resolver };
    } catch (e) {
      if (!(e instanceof ResolveError)) throw e;
      const path = e.trace.steps.flatMap((s) => (s.kind === 'naptr' ? [s.key] : []));
      return { input, urn, kind: 'failed', path, code: e.code, message: e.message };
    }
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
