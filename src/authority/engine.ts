/**
 * The query engine: one parsed query in, one answer out (`Answer`, with what RRL and logging
 * need). Bodies are encoded on a name's first query and kept; a reload swaps the zone set in one
 * assignment, so a query sees the old or the new zones, never a mix.
 */
import type { Zone, ZoneNode } from '../dns/core/zone/model.ts';
import {
  findZone,
  findZoneFor,
  indexZone,
  lookupInZone,
  makeZoneSet,
  type IndexedZone,
  type ZoneLookupOptions,
  type ZoneSet,
} from './core/zone-lookup.ts';
import {
  encodeBody,
  fitBody,
  planResponse,
  responseFlags,
  type EncodedBody,
  type Fitted,
} from './core/answer.ts';
import {
  newParsedQuery,
  parseQuery,
  PARSE_DROP,
  PARSE_FORMERR,
  PARSE_NOTIMP,
  OPTION_COOKIE,
  OPTION_NSID,
  type ParsedQuery,
  type ParseStatus,
} from '../dns/core/wire/query.ts';
import { QueryStats, type ZoneCounter } from './query-stats.ts';
import { RCODE_OF, type DnsFailureCode } from './rcodes.ts';
import {
  DO_KEY,
  findPacked,
  hotNames,
  HotNamesBuilder,
  packedIndex,
  packedSlots,
  PackedBody,
  readAnswers,
  type HotNames,
} from './core/answer-pack.ts';
import { KeyedNodes } from './core/key-index.ts';
import { checkServerCookie, ipBytes, makeServerCookie } from '../dns/core/wire/cookie.ts';
import {
  CLASS_CH,
  CLASS_IN,
  TYPE_ANY,
  TYPE_AXFR,
  TYPE_DS,
  TYPE_IXFR,
  TYPE_OPT,
  TYPE_SOA,
  TYPE_TXT,
} from '../dns/core/rr/types.ts';
import { keyIsSubdomain, nameKey } from '../dns/core/wire/name.ts';

/** The CH TXT names answered when configured (BIND, NSD, Knot): wire key -> which text. */
const CHAOS_NAMES = new Map<string, 'version' | 'id'>([
  ['\u0007version\u0004bind\u0000', 'version'],
  ['\u0007version\u0006server\u0000', 'version'],
  ['\u0002id\u0006server\u0000', 'id'],
  ['\u0008hostname\u0004bind\u0000', 'id'],
]);

/** A CH TXT answer body (owner compressed to the question, TTL 0), AA set. */
function chaosBody(text: string): EncodedBody {
  const data = Buffer.from(text, 'utf8');
  const strings: number[] = [];
  for (let i = 0; i < data.length || i === 0; i += 255) {
    const part = data.subarray(i, i + 255);
    strings.push(part.length, ...part);
  }
  const rr = [0xc0, 0x0c, 0, TYPE_TXT, 0, CLASS_CH, 0, 0, 0, 0, strings.length >>> 8];
  rr.push(strings.length & 0xff, ...strings);
  const bytes = Uint8Array.from(rr);
  const one = { ancount: 1, ends: [bytes.length], sections: [0], counts: [1] };
  return { ...emptyBody(0), aa: true, bytes, ...one, required: [true], attached: [false] };
}

export interface EngineOptions {
  /** Our EDNS UDP payload size: the most we send over UDP, and what we advertise. */
  readonly maxUdpPayload: number;
  /** CNAME/DNAME chain limit inside a zone. */
  readonly maxChain: number;
  /** Types cached per name beyond those the name owns (bounds memory against type scans). */
  readonly cachePerName: number;
  /** NSID (RFC 5001) returned to queries that ask for it; undefined: none is sent. */
  readonly nsid?: Uint8Array | undefined;
  /** Server secret (16 octets) for DNS cookies (RFC 7873, RFC 9018); undefined: cookies ignored. */
  readonly cookieSecret?: Uint8Array | undefined;
  /** CH TXT for version.bind and version.server; undefined: REFUSED. */
  readonly chaosVersion?: string | undefined;
  /** CH TXT for id.server and hostname.bind; undefined: REFUSED. */
  readonly chaosId?: string | undefined;
  /** Seconds since the epoch, for server cookie timestamps. */
  readonly now?: () => number;
}

export const DEFAULT_ENGINE_OPTIONS: EngineOptions = {
  maxUdpPayload: 1232,
  maxChain: 8,
  cachePerName: 16,
};

/** The bodies of one name: one type inline, a Map only for a second type. */
interface NameEntry {
  readonly zone: IndexedZone;
  /** The zone's query counter, kept from the name's first query on (no read of the zone after). */
  counter: ZoneCounter | undefined;
  readonly node: ZoneNode;
  type: number;
  body: EncodedBody | undefined;
  more: Map<number, EncodedBody> | undefined;
  extra: number;
}

/** What the engine keeps per served zone, made on first need (a reload keeps unchanged zones' slots). */
interface ZoneSlot {
  /** Negative bodies that depend only on the question's length: (qlen*4 + soa*2 + nx) -> body. */
  readonly negatives: Map<number, EncodedBody>;
  /** The zone's query counter in `stats`, for answers that come from no name's entry. */
  counter: ZoneCounter | undefined;
}

function slotOf(state: Compiled, z: IndexedZone): ZoneSlot {
  let slot = state.slots.get(z);
  if (slot === undefined) {
    slot = { negatives: new Map(), counter: undefined };
    state.slots.set(z, slot);
  }
  return slot;
}

/** Names whose slots `hotNames()` reports (what a reload encodes ahead, in the load worker). */
const HOT_LIMIT = 20_000;
/** Names listed per turn of the event loop by `hotNamesInSlices`. */
const HOT_SLICE = 500;

function entryBody(entry: NameEntry, type: number): EncodedBody | undefined {
  if (entry.type === type) return entry.body;
  return entry.more?.get(type);
}

function setEntryBody(entry: NameEntry, type: number, body: EncodedBody): void {
  if (entry.body === undefined) {
    entry.type = type;
    entry.body = body;
  } else (entry.more ??= new Map()).set(type, body);
}

interface Compiled {
  readonly set: ZoneSet;
  readonly names: Map<string, NameEntry>;
  /** Per zone served and queried: its negative bodies and query counter. */
  readonly slots: Map<IndexedZone, ZoneSlot>;
  readonly zones: readonly Zone[];
  readonly indexed: readonly IndexedZone[];
  /** Origin keys of configured zones not served (a secondary zone expired or never transferred): SERVFAIL. */
  readonly unavailable: readonly string[];
  /** Each served origin key -> the origin keys served or unavailable below it, sorted (`originsBelow`). */
  readonly below: ReadonlyMap<string, readonly string[]>;
  /** The zones with answers encoded ahead (at most AHEAD_ZONES are read in place). */
  readonly aheadZones: IndexedZone[];
  /** Each zone of `aheadZones` -> its index there (a name's first query: no scan of the list). */
  readonly aheadAt: Map<IndexedZone, number>;
  /** Names answered from bodies encoded ahead: key -> row index * AHEAD_ZONES + zone index. */
  readonly ahead: Map<string, number>;
}

/** Each served origin key -> the keys of `all` below it, sorted (what bodies encoded ahead assume). */
function originsBelow(
  served: ReadonlyMap<string, unknown>,
  all: readonly string[],
): Map<string, string[]> {
  const below = new Map<string, string[]>();
  for (const o of all) {
    let i = 0;
    for (let len = o.charCodeAt(0); len > 0; len = o.charCodeAt(i)) {
      i += 1 + len;
      const up = o.slice(i);
      if (!served.has(up)) continue;
      const list = below.get(up);
      if (list === undefined) below.set(up, [o]);
      else list.push(o);
    }
  }
  for (const list of below.values()) list.sort();
  return below;
}

/** `z` without its bodies encoded ahead when the worker assumed other zones below it. */
function fitAnswers(below: ReadonlyMap<string, readonly string[]>, z: IndexedZone): IndexedZone {
  const now = below.get(z.originKey) ?? [];
  const assumed = z.answers?.others;
  if (
    assumed === undefined ||
    (assumed.length === now.length && assumed.every((o, i) => o === now[i]))
  )
    return z;
  const { answers: _dropped, ...rest } = z;
  return rest;
}

/** The zones whose bodies encoded ahead are read in place (the first AHEAD_ZONES), and each one's index. */
function aheadOf(indexed: readonly IndexedZone[]) {
  const aheadZones = indexed
    .filter((z) => z.answers !== undefined && z.nodes instanceof KeyedNodes)
    .slice(0, AHEAD_ZONES);
  const aheadAt = new Map<IndexedZone, number>();
  aheadZones.forEach((z, i) => aheadAt.set(z, i));
  return { aheadZones, aheadAt };
}

/** About how many names zone z has, without a pass over them (a patched zone counts on first use). */
function nameBound(z: IndexedZone): number {
  return z.nodes instanceof KeyedNodes ? z.nodes.rows : z.zone.size;
}

/**
 * `state` without zone `old`'s entries, slot and bodies read in place. The only zone served owns
 * every entry: new maps, not a pass that holds the answers back (bench/reload.ts, swap on the
 * answering thread). Otherwise they are deleted by its names or the engine's, the fewer.
 */
function forgetZone(state: Compiled, old: IndexedZone): Compiled {
  if (state.indexed.length === 1)
    return { ...state, names: new Map(), slots: new Map(), ahead: new Map() };
  state.slots.delete(old);
  forgetNames(state, old);
  return state;
}

/** Delete zone `old`'s entries and bodies read in place, by its names or the engine's, the fewer. */
function forgetNames(state: Compiled, old: IndexedZone): void {
  const { names, ahead } = state;
  const at = state.aheadAt.get(old);
  if (nameBound(old) < names.size + ahead.size) {
    for (const key of old.nodes.keys()) {
      if (names.get(key)?.zone === old) names.delete(key);
      const v = ahead.get(key);
      if (v !== undefined && v % AHEAD_ZONES === at) ahead.delete(key);
    }
    return;
  }
  for (const [key, e] of names) if (e.zone === old) names.delete(key);
  if (at !== undefined) for (const [key, v] of ahead) if (v % AHEAD_ZONES === at) ahead.delete(key);
}

/** Carry over the answers of zones served unchanged: a reload re-encodes only the zones it changed. */
function keepUnchanged(
  old: Compiled,
  set: ZoneSet,
  names: Map<string, NameEntry>,
  slots: Map<IndexedZone, ZoneSlot>,
): void {
  const kept = new Map<IndexedZone, IndexedZone>();
  for (const z of old.indexed) {
    const now = set.byOrigin.get(z.originKey);
    if (now === undefined || now.nodes !== z.nodes || now.answers !== z.answers) continue;
    if (now.dnssec !== z.dnssec) continue;
    kept.set(z, now);
    const slot = old.slots.get(z);
    if (slot !== undefined) slots.set(now, slot);
  }
  if (kept.size === 0) return;
  for (const [key, e] of old.names) {
    const now = kept.get(e.zone);
    if (now === undefined || findZone(set, key) !== now) continue;
    names.set(key, now === e.zone ? e : { ...e, zone: now });
  }
}

/** The names with entries, then those only read in place. */
function* allHotKeys(names: ReadonlyMap<string, unknown>, ahead: ReadonlyMap<string, number>) {
  yield* names.keys();
  for (const key of ahead.keys()) if (!names.has(key)) yield key;
}

/** The slots a name was asked (its entry's bodies, or those read in place), if any. */
function hotSlots(state: Compiled, key: string): Iterable<number> | undefined {
  const e = state.names.get(key);
  if (e !== undefined)
    return e.body === undefined ? undefined : [e.type, ...(e.more?.keys() ?? [])];
  const v = state.ahead.get(key);
  if (v === undefined) return undefined;
  const p = state.aheadZones[v % AHEAD_ZONES]!.answers!;
  return packedSlots(p, p.rows[(v / AHEAD_ZONES) | 0]!);
}

/** Zones whose answers encoded ahead are read in place (the rest make entries). */
const AHEAD_ZONES = 1024;

/** What the engine counted since the start (`/metrics`, `ctl stats`). */
export interface EngineCounters {
  queries: number;
  dropped: number;
  formerr: number;
  notimp: number;
  refused: number;
  badvers: number;
}

/** The engine's answer to one query, with the facts RRL and logging need. */
export interface Answer {
  readonly bytes: Buffer;
  readonly body: EncodedBody;
  readonly key: string;
  readonly qtype: number;
  readonly zone: IndexedZone | undefined;
  readonly wildcard: boolean;
  readonly questionEnd: number;
  readonly tc: boolean;
}

/** An answer while it is being made (one object per query, returned as `Answer`). */
type Making = { -readonly [K in keyof Answer]: Answer[K] } & {
  /** The name's entry when the answer came from it (its zone is `zone`). */
  entry: NameEntry | undefined;
  /** The slot of `zone` when the engine had it at hand (else found when counting). */
  slot: ZoneSlot | undefined;
};

const NO_BYTES = Buffer.alloc(0);

function emptyBody(rcode: number): EncodedBody {
  return {
    rcode,
    aa: false,
    bytes: new Uint8Array(0),
    ancount: 0,
    nscount: 0,
    arcount: 0,
    ends: [],
    sections: [],
    counts: [],
    required: [],
    attached: [],
  };
}

const NODATA_AA_BODY: EncodedBody = { ...emptyBody(0), aa: true };

/** The empty answer of each failure, its rcode from `RCODE_OF`; equal rcodes share one body. */
function failureBodies(): Readonly<Record<DnsFailureCode, EncodedBody>> {
  const byRcode = new Map<number, EncodedBody>();
  const out: Partial<Record<DnsFailureCode, EncodedBody>> = {};
  for (const [code, rcode] of Object.entries(RCODE_OF) as [DnsFailureCode, number][]) {
    let body = byRcode.get(rcode);
    if (body === undefined) byRcode.set(rcode, (body = emptyBody(rcode)));
    out[code] = body;
  }
  return out as Record<DnsFailureCode, EncodedBody>;
}
const FAILURE: Readonly<Record<DnsFailureCode, EncodedBody>> = failureBodies();

/** Node's Buffer has an undocumented but stable latin1Slice (what toString('latin1') calls). */
type Latin1Buffer = Buffer & { latin1Slice(start: number, end: number): string };

const UDP = 0;
const TCP = 1;
/** DNS over HTTPS: answered as over TCP (no truncation, full ANY), counted apart. */
const DOH = 2;
export type Transport = typeof UDP | typeof TCP | typeof DOH;
export const TRANSPORT_UDP: Transport = UDP;
export const TRANSPORT_TCP: Transport = TCP;
export const TRANSPORT_DOH: Transport = DOH;

export class Engine {
  readonly options: EngineOptions;
  private readonly tally: EngineCounters = {
    queries: 0,
    dropped: 0,
    formerr: 0,
    notimp: 0,
    refused: 0,
    badvers: 0,
  };
  /** Queries by transport, type, rcode and zone, response sizes (`/metrics`). */
  readonly stats = new QueryStats();
  private state!: Compiled;
  private readonly q: ParsedQuery = newParsedQuery();
  private readonly fitted: Fitted = { length: 0, ancount: 0, nscount: 0, arcount: 0, tc: false };
  private readonly keyScratch = Buffer.alloc(256);
  private readonly lookupUdp: ZoneLookupOptions;
  private readonly lookupTcp: ZoneLookupOptions;
  private readonly chaos = new Map<string, EncodedBody>();
  private readonly now: () => number;

  constructor(zones: readonly (Zone | IndexedZone)[] = [], options: Partial<EngineOptions> = {}) {
    this.options = { ...DEFAULT_ENGINE_OPTIONS, ...options };
    // A chain continues into any zone served here (RFC 1034 section 4.3.2 step 1).
    const zoneFor = (key: string, qtype: number) => findZoneFor(this.state.set, key, qtype);
    this.lookupUdp = { maxChain: this.options.maxChain, any: 'minimal', zoneFor };
    this.lookupTcp = { maxChain: this.options.maxChain, any: 'full', zoneFor };
    this.state = this.compile(zones);
    this.now = this.options.now ?? (() => Math.floor(Date.now() / 1000));
    for (const [key, which] of CHAOS_NAMES) {
      const text = which === 'version' ? this.options.chaosVersion : this.options.chaosId;
      if (text !== undefined) this.chaos.set(key, chaosBody(text));
    }
  }

  /** What the engine counted since the start. */
  get counters(): Readonly<EngineCounters> {
    return this.tally;
  }

  get zones(): readonly Zone[] {
    return this.state.zones;
  }

  /** The zones being served, indexed (what another answering thread can be given). */
  get zoneEntries(): readonly IndexedZone[] {
    return this.state.indexed;
  }

  /** Replace every served zone at once; a plain `Zone` is indexed first (an `IndexedZone` is not). */
  setZones(zones: readonly (Zone | IndexedZone)[], unavailable: readonly string[] = []): void {
    this.state = this.compile(zones, unavailable);
  }

  /** Origins (keys) of the configured zones that are not served: their names get SERVFAIL. */
  get unavailable(): readonly string[] {
    return this.state.unavailable;
  }

  private compile(
    zones: readonly (Zone | IndexedZone)[],
    unavailable: readonly string[] = [],
  ): Compiled {
    const given = zones.map((z) => ('originKey' in z ? z : indexZone(z)));
    // Bodies encoded ahead hold only where the worker assumed the same zones below.
    const below = originsBelow(makeZoneSet(given).byOrigin, [
      ...given.map((z) => z.originKey),
      ...unavailable,
    ]);
    const indexed = given.map((z) => fitAnswers(below, z));
    const set = makeZoneSet(indexed);
    const slots = new Map<IndexedZone, ZoneSlot>();
    const names = new Map<string, NameEntry>();
    const old = this.state as Compiled | undefined;
    if (old !== undefined) keepUnchanged(old, set, names, slots);
    // Answers are encoded on a name's first query (bodyFor): a reload allocates none.
    const zs = indexed.map((z) => z.zone);
    const ahead = new Map<string, number>();
    return {
      set,
      names,
      slots,
      zones: zs,
      indexed,
      unavailable,
      below,
      ...aheadOf(indexed),
      ahead,
    };
  }

  /**
   * Serve a new version of one zone (`ctl reload ZONE`) in time proportional to it: the other
   * zones keep their answers. False, nothing changed, when no zone of that origin is served.
   */
  replaceZone(zone: Zone | IndexedZone): boolean {
    const given = 'originKey' in zone ? zone : indexZone(zone);
    const old = this.state.set.byOrigin.get(given.originKey);
    if (old === undefined) return false;
    if (old === given) return true;
    const z = fitAnswers(this.state.below, given);
    const state = forgetZone(this.state, old);
    // New lists (a reader may compare them with those it saw: `xfr/out.ts`); the maps are this
    // state's own, written in place between two queries.
    const i = state.indexed.indexOf(old);
    const indexed = state.indexed.with(i, z);
    const zones = state.zones.with(i, z.zone);
    (state.set.byOrigin as Map<string, IndexedZone>).set(z.originKey, z);
    const at = state.aheadAt.get(old);
    const readAhead = z.answers !== undefined && z.nodes instanceof KeyedNodes;
    if (at !== undefined && !readAhead) {
      // The places of the zones after it change: listed again, their names found again on first query.
      this.state = { ...state, indexed, zones, ...aheadOf(indexed), ahead: new Map() };
      return true;
    }
    if (at !== undefined) {
      state.aheadAt.delete(old);
      state.aheadZones[at] = z;
      state.aheadAt.set(z, at);
    } else if (readAhead && state.aheadZones.length < AHEAD_ZONES) {
      state.aheadAt.set(z, state.aheadZones.length);
      state.aheadZones.push(z);
    }
    this.state = { ...state, indexed, zones };
    return true;
  }

  /** The lookup key of the question name: its wire octets, ASCII lowercased. */
  private questionKey(msg: Buffer, end: number): string {
    let upper = false;
    for (let i = 12; i < end; i++) {
      const c = msg[i]!;
      if (c >= 0x41 && c <= 0x5a) {
        upper = true;
        break;
      }
    }
    if (!upper) return (msg as Latin1Buffer).latin1Slice(12, end);
    const s = this.keyScratch;
    const n = end - 12;
    for (let i = 0; i < n; i++) {
      const c = msg[12 + i]!;
      s[i] = c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
    }
    return (s as Latin1Buffer).latin1Slice(0, n);
  }

  /** The entry of a name without one yet, if zone `z` (the only one that answers for it) owns it. */
  private entryFor(state: Compiled, key: string, z: IndexedZone): NameEntry | undefined {
    const node = z.nodes.get(key);
    if (node === undefined) return undefined;
    const entry: NameEntry = {
      zone: z,
      counter: undefined,
      node,
      type: -1,
      body: undefined,
      more: undefined,
      extra: 0,
    };
    if (z.answers !== undefined && z.nodes instanceof KeyedNodes) {
      // Encoded ahead by the load worker: views into its arena, nothing to build here.
      const bodies = readAnswers(z.answers, z.nodes.row(key));
      for (const { slot, body } of bodies ?? []) {
        setEntryBody(entry, slot, body);
        if (!node.rrsets.has(slot & 0xffff)) entry.extra++;
      }
      if (bodies && !state.ahead.has(key)) this.ahead++;
    }
    state.names.set(key, entry);
    return entry;
  }

  /** A body encoded ahead, read in place with no entry made (a swap's first queries allocate none). */
  private aheadBody(
    a: Making,
    state: Compiled,
    key: string,
    qtype: number,
    dnssecOk: boolean,
  ): EncodedBody | undefined {
    let v = state.ahead.get(key);
    if (v === undefined) {
      if (state.aheadZones.length === 0) return undefined;
      const found = findZone(state.set, key);
      const at = found ? state.aheadAt.get(found) : undefined;
      if (at === undefined) return undefined;
      const p = found!.answers!;
      const i = packedIndex(p, (found!.nodes as KeyedNodes).row(key));
      if (i < 0) return undefined;
      v = i * AHEAD_ZONES + at;
      state.ahead.set(key, v);
      this.ahead++;
    }
    const z = state.aheadZones[v % AHEAD_ZONES]!;
    if (qtype === TYPE_ANY || (qtype === TYPE_DS && z.originKey === key)) return undefined;
    const p = z.answers!;
    const signed = dnssecOk && z.dnssec !== undefined;
    const at = findPacked(p, p.rows[(v / AHEAD_ZONES) | 0]!, signed ? qtype + DO_KEY : qtype);
    if (at < 0) return undefined;
    a.zone = z;
    return this.packedBody.read(p, at);
  }

  private readonly packedBody = new PackedBody();
  private ahead = 0;

  /** Names whose answers came encoded ahead from the load worker (since the start). */
  get answersAhead(): number {
    return this.ahead;
  }

  /** The names being asked, with their slots, for the next load to encode ahead (at most HOT_LIMIT). */
  hotNames(): HotNames {
    return hotNames(this.hotEntries(), this.originKeys(), this.options.maxChain);
  }

  /**
   * The same, `slice` names per event-loop turn (the answering thread is not stalled); with
   * `origin`, only the names at or below it (the worker encodes ahead only the zone it reloads).
   */
  async hotNamesInSlices(slice = HOT_SLICE, origin?: string): Promise<HotNames> {
    const b = new HotNamesBuilder();
    const under = origin === undefined ? undefined : nameKey(origin);
    // A zone served already: its own names, when fewer than those asked, and the zones below it.
    const own = under === undefined ? undefined : this.state.set.byOrigin.get(under);
    const origins =
      under === undefined
        ? this.originKeys()
        : own !== undefined
          ? [under, ...(this.state.below.get(under) ?? [])]
          : this.originKeys().filter((o) => keyIsSubdomain(o, under));
    let seen = 0;
    for (const [key, types] of this.hotEntries(own)) {
      if (++seen % (slice * 8) === 0) await new Promise<void>((r) => setImmediate(r));
      if (under !== undefined && !keyIsSubdomain(key, under)) continue;
      b.add(key, types);
      if (b.count % slice === 0) await new Promise<void>((r) => setImmediate(r));
    }
    return b.finish(origins, this.options.maxChain);
  }

  /** The origin keys served and unavailable. */
  private originKeys(): string[] {
    return [...this.state.set.byOrigin.keys(), ...this.state.unavailable];
  }

  /** The hot set's names and slots; with `only`, that zone's names when fewer than the hot set. */
  private *hotEntries(only?: IndexedZone): Generator<readonly [string, Iterable<number>]> {
    const state = this.state;
    const { names, ahead } = state;
    let n = 0;
    const rows = only && nameBound(only);
    const keys =
      rows !== undefined && rows < names.size + ahead.size
        ? only!.nodes.keys()
        : allHotKeys(names, ahead);
    for (const key of keys) {
      const slots = hotSlots(state, key);
      if (slots === undefined) continue;
      if (n++ >= HOT_LIMIT) return;
      yield [key, slots] as const;
    }
  }

  private bodyFor(
    a: Making,
    key: string,
    qtype: number,
    transport: Transport,
    dnssecOk: boolean,
  ): EncodedBody {
    const state = this.state;
    a.key = key;
    // RFC 1034 section 4.3.5: a zone not refreshed within its expire time is no longer authoritative.
    if (state.unavailable.length > 0 && this.inUnavailable(state, key))
      return FAILURE.QUERY_ZONE_EXPIRED;
    let entry = state.names.get(key);
    // The most specific zone for the name, when searched here (null: not searched).
    let found: IndexedZone | undefined | null = null;
    if (entry === undefined) {
      const ahead = this.aheadBody(a, state, key, qtype, dnssecOk);
      if (ahead !== undefined) return ahead;
      found = findZone(state.set, key);
      if (found !== undefined) entry = this.entryFor(state, key, found);
    }
    if (entry !== undefined && !(qtype === TYPE_DS && entry.zone.originKey === key)) {
      const signed = dnssecOk && entry.zone.dnssec !== undefined;
      a.zone = entry.zone;
      a.entry = entry;
      if (qtype === TYPE_ANY) {
        const opts = transport !== UDP ? this.lookupTcp : this.lookupUdp;
        return encodeBody(
          key,
          planResponse(lookupInZone(entry.zone, key, qtype, opts), qtype, signed),
        );
      }
      const slot = signed ? qtype + DO_KEY : qtype;
      const cached = entryBody(entry, slot);
      if (cached !== undefined) return cached;
      const body = encodeBody(
        key,
        planResponse(lookupInZone(entry.zone, key, qtype, this.lookupUdp), qtype, signed),
      );
      // The types a name owns are always kept; others up to cachePerName.
      if (entry.node.rrsets.has(qtype)) setEntryBody(entry, slot, body);
      else if (entry.extra < this.options.cachePerName) {
        setEntryBody(entry, slot, body);
        entry.extra++;
      }
      return body;
    }
    // findZoneFor differs from findZone only for DS (at a zone's apex, the parent answers).
    const z = found !== null && qtype !== TYPE_DS ? found : findZoneFor(state.set, key, qtype);
    if (z === undefined) {
      this.tally.refused++;
      return FAILURE.QUERY_NOT_AUTHORITATIVE;
    }
    const r = lookupInZone(z, key, qtype, transport !== UDP ? this.lookupTcp : this.lookupUdp);
    const slot = slotOf(state, r.zone);
    a.zone = r.zone;
    a.slot = slot;
    a.wildcard = r.wildcard;
    // A signed negative answer proves the name's absence: its body depends on the name.
    if (dnssecOk && r.zone.dnssec !== undefined)
      return encodeBody(key, planResponse(r, qtype, true));
    if (r.answer.length === 0 && (r.kind === 'nxdomain' || r.kind === 'nodata')) {
      // The negative body (SOA in authority) depends only on the question's length.
      const neg = slot.negatives;
      const id = key.length * 4 + (r.kind === 'nxdomain' ? 1 : 0) + (qtype === TYPE_SOA ? 2 : 0);
      let body = neg.get(id);
      if (body === undefined) {
        body = encodeBody(key, planResponse(r, qtype), { questionSuffixes: r.zone.originKey });
        neg.set(id, body);
      }
      return body;
    }
    return encodeBody(key, planResponse(r, qtype));
  }

  /** The name lies in an unavailable zone more specific than any zone served for it. */
  private inUnavailable(state: Compiled, key: string): boolean {
    for (const u of state.unavailable) {
      if (!keyIsSubdomain(key, u)) continue;
      const z = findZone(state.set, key);
      if (z === undefined || z.originKey.length < u.length) return true;
    }
    return false;
  }

  /** Parse and answer one message (tests and benches; the pipeline parses once and calls `answer`). */
  query(msg: Buffer, transport: Transport, client = ''): Answer | undefined {
    const q = this.q;
    return this.answer(msg, q, parseQuery(msg, msg.length, q), transport, client);
  }

  /** The response octets of `query`, or undefined when the message must be dropped. */
  respond(msg: Buffer, transport: Transport, client = ''): Buffer | undefined {
    return this.query(msg, transport, client)?.bytes;
  }

  /** Answer one parsed message; undefined when it must be dropped. */
  answer(
    msg: Buffer,
    q: ParsedQuery,
    status: ParseStatus,
    transport: Transport,
    client: string,
  ): Answer | undefined {
    this.tally.queries++;
    if (status === PARSE_DROP) {
      this.tally.dropped++;
      return undefined;
    }
    const a: Making = {
      bytes: NO_BYTES,
      body: FAILURE.QUERY_NOT_AUTHORITATIVE,
      key: '',
      qtype: q.qtype,
      zone: undefined,
      entry: undefined,
      slot: undefined,
      wildcard: false,
      questionEnd: 12,
      tc: false,
    };
    a.body = this.bodyOf(a, msg, q, status, transport);
    this.write(a, msg, q, transport, client);
    return a;
  }

  /** The body that answers a parsed message. */
  private bodyOf(
    a: Making,
    msg: Buffer,
    q: ParsedQuery,
    status: ParseStatus,
    transport: Transport,
  ): EncodedBody {
    if (status === PARSE_FORMERR) {
      this.tally.formerr++;
      return FAILURE[q.error === '' ? 'QUESTION_TRUNCATED' : q.error];
    }
    if (status === PARSE_NOTIMP) {
      // RFC 8906 section 3.1.5: "a server that does not implement an opcode [...] NOTIMP".
      this.tally.notimp++;
      return FAILURE.QUERY_OPCODE_NOT_IMPLEMENTED;
    }
    if (q.edns && q.ednsVersion > 0) {
      // RFC 6891 section 6.1.3: an unimplemented VERSION gets BADVERS.
      this.tally.badvers++;
      return FAILURE.QUERY_EDNS_VERSION;
    }
    if (q.qclass !== CLASS_IN) {
      const body = q.qclass === CLASS_CH ? this.chaosAnswer(msg, q) : FAILURE.QUERY_CLASS_REFUSED;
      if (body === FAILURE.QUERY_CLASS_REFUSED) this.tally.refused++;
      return body;
    }
    if (q.qtype === TYPE_OPT) {
      // OPT is a pseudo-RR: it cannot be queried (RFC 6891 section 6.1.1).
      this.tally.formerr++;
      return FAILURE.QUERY_TYPE_OPT;
    }
    if (q.qtype === TYPE_IXFR || q.qtype === TYPE_AXFR) {
      // Refused (RFC 5936 section 2.2.1); allowed peers' go to the transfer service first (pipeline).
      this.tally.refused++;
      return FAILURE.QUERY_TRANSFER_REFUSED;
    }
    if (q.qtype >= 249 && q.qtype <= 254) {
      // TKEY, TSIG, MAILB, MAILA: not offered by this server.
      this.tally.notimp++;
      return FAILURE.QUERY_TYPE_NOT_IMPLEMENTED;
    }
    return this.bodyFor(a, this.questionKey(msg, q.qnameEnd), q.qtype, transport, q.dnssecOk);
  }

  /** CH TXT version/id answers when configured; anything else in class CH is REFUSED. */
  private chaosAnswer(msg: Buffer, q: ParsedQuery): EncodedBody {
    const body = this.chaos.get(this.questionKey(msg, q.qnameEnd));
    if (body === undefined) return FAILURE.QUERY_CLASS_REFUSED;
    return q.qtype === TYPE_TXT || q.qtype === TYPE_ANY ? body : NODATA_AA_BODY;
  }

  /**
   * The response's EDNS options: NSID (RFC 5001) and cookies (RFC 7873, RFC 9018: a valid server
   * cookie younger than half an hour is returned as it came, else a fresh one is made).
   */
  private ednsOptions(msg: Buffer, q: ParsedQuery, client: string): Uint8Array | undefined {
    const nsid = q.nsid ? this.options.nsid : undefined;
    const secret = q.cookieAt >= 0 ? this.options.cookieSecret : undefined;
    if (nsid === undefined && secret === undefined) return undefined;
    const parts: number[] = [];
    if (nsid !== undefined)
      parts.push(0, OPTION_NSID, nsid.length >>> 8, nsid.length & 0xff, ...nsid);
    if (secret !== undefined) {
      const cc = msg.subarray(q.cookieAt, q.cookieAt + 8);
      const ip = ipBytes(client);
      const now = this.now();
      let sc: Uint8Array | undefined;
      if (q.cookieLen === 24) {
        const sent = msg.subarray(q.cookieAt + 8, q.cookieAt + 24);
        if (checkServerCookie(secret, cc, sent, ip, now) === 'valid') sc = sent;
      }
      sc ??= makeServerCookie(secret, cc, ip, now);
      parts.push(0, OPTION_COOKIE, 0, 8 + sc.length, ...cc, ...sc);
    }
    return Uint8Array.from(parts);
  }

  /** The query counter of the zone that answered, or undefined. */
  private zoneCounter(a: Making): ZoneCounter | undefined {
    const z = a.zone;
    if (z === undefined) return undefined;
    if (a.entry !== undefined) return (a.entry.counter ??= this.counterOf(z));
    const slot = a.slot ?? slotOf(this.state, z);
    return (slot.counter ??= this.counterOf(z));
  }

  private counterOf(z: IndexedZone): ZoneCounter {
    return this.stats.zoneCounter(z.originKey, z.zone.origin);
  }

  /** Encode the answer's body for `q` into `a.bytes`, within the transport's size limit. */
  private write(
    a: Making,
    msg: Buffer,
    q: ParsedQuery,
    transport: Transport,
    client: string,
  ): void {
    const body = a.body;
    const qlen = q.hasQuestion ? q.questionEnd - 12 : 0;
    const options = q.edns ? this.ednsOptions(msg, q, client) : undefined;
    const optLen = q.edns ? 11 + (options?.length ?? 0) : 0;
    let limit: number;
    if (transport !== UDP) limit = 65535;
    else if (q.edns) {
      // RFC 6891 section 6.2.5: values below 512 are treated as 512.
      const asked = q.udpSize < 512 ? 512 : q.udpSize;
      limit = asked < this.options.maxUdpPayload ? asked : this.options.maxUdpPayload;
    } else limit = 512;
    a.questionEnd = 12 + qlen;
    const f = fitBody(body, limit - 12 - qlen - optLen, this.fitted);
    a.tc = f.tc;
    if (f.tc) {
      // As BIND: a truncated EDNS response carries no records, so no RRset goes without its RRSIGs
      // (RFC 4035 section 3.1.1).
      if (q.edns) {
        f.length = 0;
        f.ancount = 0;
        f.nscount = 0;
        f.arcount = 0;
      }
    }
    const size = 12 + qlen + f.length + optLen;
    this.stats.count(transport, q.qtype, body.rcode, size, this.zoneCounter(a));
    const out = Buffer.allocUnsafe(size);
    out[0] = msg[0]!;
    out[1] = msg[1]!;
    const rcode = body.rcode;
    const flags = responseFlags(q.flags, body.aa, f.tc, rcode & 0xf);
    out[2] = flags >>> 8;
    out[3] = flags & 0xff;
    out[4] = 0;
    out[5] = q.hasQuestion ? 1 : 0;
    out[6] = f.ancount >>> 8;
    out[7] = f.ancount & 0xff;
    out[8] = f.nscount >>> 8;
    out[9] = f.nscount & 0xff;
    const ar = f.arcount + (q.edns ? 1 : 0);
    out[10] = ar >>> 8;
    out[11] = ar & 0xff;
    if (qlen > 0) msg.copy(out, 12, 12, q.questionEnd);
    let o = 12 + qlen;
    if (f.length > 0) {
      out.set(f.length === body.bytes.length ? body.bytes : body.bytes.subarray(0, f.length), o);
      o += f.length;
    }
    if (q.edns) {
      // RFC 6891 sections 6.1.2, 6.1.3: root owner, CLASS = our payload size, TTL = extended
      // RCODE high bits, VERSION 0, DO copied (RFC 3225 section 3).
      const payload = this.options.maxUdpPayload;
      out[o] = 0;
      out[o + 1] = 0;
      out[o + 2] = 41;
      out[o + 3] = payload >>> 8;
      out[o + 4] = payload & 0xff;
      out[o + 5] = rcode >>> 4;
      out[o + 6] = 0;
      out[o + 7] = q.dnssecOk ? 0x80 : 0;
      out[o + 8] = 0;
      const rdlen = options?.length ?? 0;
      out[o + 9] = rdlen >>> 8;
      out[o + 10] = rdlen & 0xff;
      if (options !== undefined) out.set(options, o + 11);
    }
    a.bytes = out;
  }
}
