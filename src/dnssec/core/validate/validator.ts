/**
 * The client's DNSSEC validator: the chain of trust from an anchor to one
 * lookup's RRsets over DNSKEY and DS RRsets fetched through the host, with
 * a cache. Pure. Top-down for unsigned data (one DS query per label),
 * bottom-up for signed data (signer's keys up to an anchor).
 *
 * @see RFC 4033 section 5, RFC 4035 section 5, RFC 5155 section 8, RFC 6840
 *   sections 4.4 and 5.11, RFC 6672 section 5.3.1 (a DNAME's CNAME is unsigned)
 */
import {
  keyIsSubdomain,
  keyLabelCount,
  keyParent,
  keyToName,
  nameKey,
  wireToKey,
} from '../../../dns/core/wire/name.ts';
import { keyAncestor } from '../../../dns/core/zone/dnssec.ts';
import { rememberingVerifier, type DnssecCrypto } from './crypto.ts';
import {
  dsDenial,
  provesNodata,
  provesNxdomain,
  provesWildcard,
  readNsec,
  readNsec3,
  type DenialSet,
  type Nsec3Record,
  type NsecRecord,
} from './denial.ts';
import {
  checkSignatures,
  matchingKeys,
  readDs,
  usableRef,
  zoneKeyOf,
  type KeyRef,
  type ZoneKey,
} from './keys.ts';
import {
  readResponse,
  rrsigFields,
  signedSets,
  T_CNAME,
  T_DNAME,
  T_DNSKEY,
  T_DS,
  T_NSEC,
  T_NSEC3,
  type ReadResponse,
  type SignedSet,
} from './message.ts';
import { typeName } from '../../../dns/core/rr/types.ts';
import {
  about,
  bogus,
  combine,
  insecure,
  type Bogus,
  type Insecure,
  type Verdict,
  type VerdictAbout,
} from './verdict.ts';

/** A trust anchor: a DS or DNSKEY record's RDATA at a zone (`owner` in presentation form). */
export interface TrustAnchor {
  readonly owner: string;
  readonly type: 'DS' | 'DNSKEY';
  readonly rdata: Uint8Array;
}

export interface ValidatorHost {
  readonly crypto: DnssecCrypto;
  readonly anchors: readonly TrustAnchor[];
  /** The clock, in seconds since the epoch (RRSIG validity and the cache). */
  now(): number;
  /** The responses (DO and CD set) to a DS or DNSKEY query, one per CNAME restart; rejects on failure. */
  fetch(name: string, type: 'DS' | 'DNSKEY'): Promise<readonly Uint8Array[]>;
  /** Seconds a validated key set or proof is kept (default: its TTL, at most 3600). */
  readonly maxCacheSeconds?: number;
  /** NSEC3 iterations above which a denial is insecure (default NSEC3_MAX_ITERATIONS). */
  readonly nsec3MaxIterations?: number;
}

type ZoneState =
  | { readonly status: 'secure'; readonly keys: readonly ZoneKey[]; readonly anchor: string }
  | Insecure
  | Bogus;

/** What a DS query at a name says: a secure DS set, no zone cut here, or a verdict. */
type DsState =
  | { readonly status: 'ds'; readonly refs: readonly KeyRef[]; readonly anchor: string }
  | { readonly status: 'not-a-cut' }
  | Insecure
  | Bogus;

interface Entry<T> {
  readonly value: Promise<T>;
  expires: number;
}

/** Most entries in each cache (oldest dropped first). */
const CACHE_MAX = 4096;

/** NSEC3 iterations above which a denial is insecure (RFC 9276 section 3.2), as BIND and Unbound. */
export const NSEC3_MAX_ITERATIONS = 150;

export class Validator {
  private readonly host: ValidatorHost;
  private readonly anchors: ReadonlyMap<string, readonly KeyRef[]>;
  /** The host's crypto, remembering the signatures it verified (`rememberingVerifier`). */
  private readonly crypto: DnssecCrypto;
  private readonly zones = new Map<string, Entry<ZoneState>>();
  private readonly delegations = new Map<string, Entry<DsState>>();

  constructor(host: ValidatorHost) {
    this.host = host;
    this.crypto = rememberingVerifier(host.crypto);
    const anchors = new Map<string, KeyRef[]>();
    for (const a of host.anchors) {
      const key = nameKey(a.owner);
      const ref: KeyRef | undefined =
        a.type === 'DNSKEY'
          ? { dnskey: a.rdata }
          : ((ds) => (ds ? { ds } : undefined))(readDs(a.rdata));
      if (!ref) continue;
      const list = anchors.get(key) ?? [];
      list.push(ref);
      anchors.set(key, list);
    }
    this.anchors = anchors;
  }

  /** The anchor name at or above `key` that is deepest, or undefined. */
  private anchorFor(key: string): string | undefined {
    for (let k: string | undefined = key; k !== undefined; k = keyParent(k))
      if (this.anchors.has(k)) return k;
    return undefined;
  }

  private cached<T>(
    map: Map<string, Entry<T>>,
    key: string,
    make: () => Promise<{ value: T; ttl: number }>,
  ): Promise<T> {
    const now = this.host.now();
    const hit = map.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (map.size >= CACHE_MAX) map.delete(map.keys().next().value as string);
    const entry = { expires: Number.POSITIVE_INFINITY } as { value: Promise<T>; expires: number };
    entry.value = make().then(
      ({ value, ttl }) => {
        entry.expires = this.host.now() + Math.min(ttl, this.host.maxCacheSeconds ?? 3600);
        return value;
      },
      (e: unknown) => {
        map.delete(key);
        throw e;
      },
    );
    map.set(key, entry);
    return entry.value;
  }

  private async fetch(key: string, type: 'DS' | 'DNSKEY'): Promise<ReadResponse | Bogus> {
    let wires: readonly Uint8Array[];
    try {
      wires = await this.host.fetch(keyToName(key), type);
    } catch (e) {
      return bogus(
        'BOGUS_FETCH',
        `${type} ${keyToName(key)}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    const last = wires[wires.length - 1];
    const r = last ? readResponse(last) : undefined;
    return (
      r ?? bogus('BOGUS_MALFORMED', `the ${type} response for ${keyToName(key)} does not decode`)
    );
  }

  /** The validated keys of `zone`, or why there are none. */
  zoneKeys(zone: string): Promise<ZoneState> {
    return this.cached(this.zones, zone, async () => {
      const state = await this.computeZoneKeys(zone);
      return { value: state, ttl: state.status === 'bogus' ? 30 : this.lastTtl };
    });
  }

  /** The TTL of the last DNSKEY set validated (read right after computeZoneKeys). */
  private lastTtl = 3600;

  private async computeZoneKeys(zone: string): Promise<ZoneState> {
    this.lastTtl = 3600;
    const anchored = this.anchors.get(zone);
    if (anchored) return this.keysFrom(zone, anchored, keyToName(zone));
    if (this.anchorFor(zone) === undefined) return noAnchor(zone);
    const ds = await this.dsState(zone, false);
    if (ds.status === 'ds') return this.keysFrom(zone, ds.refs, ds.anchor);
    if (ds.status === 'not-a-cut')
      return bogus(
        'BOGUS_NO_DNSKEY',
        `${keyToName(zone)} signs data but is not a zone cut`,
        keyToName(zone),
      );
    return ds;
  }

  /** The DNSKEY set of `zone` authenticated by `refs` (DS records or anchors). */
  private async keysFrom(
    zone: string,
    refs: readonly KeyRef[],
    anchor: string,
  ): Promise<ZoneState> {
    const name = keyToName(zone);
    const usable = refs.filter((r) => usableRef(r, this.crypto));
    if (usable.length === 0)
      return insecure(
        'INSECURE_UNSUPPORTED_ALGORITHM',
        name,
        `the DS or anchor records of ${name} use only algorithms or digests not supported here`,
        anchor,
        { rrset: { name, type: 'DNSKEY' }, ...refAlgorithm(refs[0]) },
      );
    const r = await this.fetch(zone, 'DNSKEY');
    if ('status' in r) return { ...r, zone: name };
    const set = signedSets(r.answer).find((s) => s.key === zone && s.type === T_DNSKEY);
    const dnskey = { rrset: { name, type: 'DNSKEY' } };
    if (!set) return bogus('BOGUS_NO_DNSKEY', `no DNSKEY RRset at ${name}`, name, dnskey);
    const all = set.records
      .map((k) => zoneKeyOf(k.rdata))
      .filter((k): k is ZoneKey => k !== undefined);
    const entry = await matchingKeys(zone, all, usable, this.crypto);
    if (entry.length === 0)
      return bogus(
        'BOGUS_DS_MISMATCH',
        `no DNSKEY of ${name} matches its DS or trust anchor records`,
        name,
        { ...dnskey, ...refAlgorithm(usable[0]) },
      );
    const check = await checkSignatures(set, zone, entry, this.crypto, this.host.now());
    if (!check.ok)
      return bogus(
        check.code === 'BOGUS_SIGNATURE' ? 'BOGUS_NO_DNSKEY' : check.code,
        `DNSKEY ${name}: ${check.detail}`,
        name,
        { ...dnskey, ...keyOf(check) },
      );
    this.lastTtl = Math.min(...set.records.map((k) => k.ttl));
    return { status: 'secure', keys: all, anchor };
  }

  /** The DS query at `key`; `topDown`: the enclosing zone is secure, so an unsigned answer is bogus. */
  private dsState(key: string, topDown: boolean): Promise<DsState> {
    return this.cached(this.delegations, `${topDown ? 1 : 0}${key}`, async () => ({
      value: await this.computeDsState(key, topDown),
      ttl: 300,
    }));
  }

  private async computeDsState(key: string, topDown: boolean): Promise<DsState> {
    const name = keyToName(key);
    const asked = { rrset: { name, type: 'DS' } };
    const parent = keyParent(key);
    if (parent === undefined) return bogus('BOGUS_MISSING_DS_PROOF', 'the root has no DS');
    const r = await this.fetch(key, 'DS');
    if ('status' in r) return r;
    // Only records signed above the name speak for the delegation (the parent side).
    const above = (s: SignedSet) => ({
      ...s,
      sigs: s.sigs.filter((g) => {
        const f = rrsigFields(g.rdata);
        return f !== undefined && f.signer !== key && keyIsSubdomain(key, f.signer);
      }),
    });
    const ds = signedSets(r.answer).find((s) => s.key === key && s.type === T_DS);
    if (ds) {
      const v = await this.signedOrNot(above(ds), parent, topDown);
      if (v.status !== 'secure')
        return v.status === 'bogus'
          ? { ...v, code: v.code === 'BOGUS_NO_SIGNATURE' ? 'BOGUS_MISSING_DS_PROOF' : v.code }
          : v;
      const refs = ds.records
        .map((d) => readDs(d.rdata))
        .filter((d) => d !== undefined)
        .map((d) => ({ ds: d }));
      return { status: 'ds', refs, anchor: v.anchor };
    }
    const denial = await this.denialOf(r, parent, topDown, above);
    if ('status' in denial) {
      if (denial.status === 'insecure') return denial;
      return bogus(
        'BOGUS_MISSING_DS_PROOF',
        `no DS at ${name} and ${denial.status === 'bogus' ? denial.detail : 'no proof'}`,
        name,
        asked,
      );
    }
    switch (dsDenial(denial.set, key, r.rcode === 3)) {
      case 'no-ds':
        return insecure(
          'INSECURE_NO_DS',
          name,
          `${denial.how} at ${name}: a delegation without DS`,
          denial.anchor,
          asked,
        );
      case 'opt-out':
        return optOut(key, denial.anchor, asked);
      case 'not-a-cut':
        return { status: 'not-a-cut' };
      case 'no-proof':
        return bogus(
          'BOGUS_MISSING_DS_PROOF',
          `no DS at ${name} and no NSEC/NSEC3 proves its absence`,
          name,
          asked,
        );
    }
  }

  /** A set's verdict; unsigned: bogus top-down, else insecure only below an unsigned delegation. */
  private async signedOrNot(set: SignedSet, near: string, topDown: boolean): Promise<Verdict> {
    if (set.sigs.length === 0 && topDown)
      return bogus(
        'BOGUS_NO_SIGNATURE',
        `${keyToName(set.key)}: no RRSIG in a signed zone`,
        undefined,
        {
          rrset: rrsetOf(set.key, set.type),
        },
      );
    return set.sigs.length === 0 ? this.unsigned(near, set.key) : this.verifySet(set);
  }

  /** The verified NSEC/NSEC3 records of a response's authority section. */
  private async denialOf(
    r: ReadResponse,
    near: string,
    topDown: boolean,
    filter: (s: SignedSet) => SignedSet = (s) => s,
  ): Promise<{ set: DenialSet; how: string; anchor: string } | Verdict> {
    const sets = signedSets(r.authority)
      .filter((s) => s.type === T_NSEC || s.type === T_NSEC3)
      .map(filter);
    if (sets.length === 0) {
      const v = topDown
        ? bogus('BOGUS_DENIAL', 'no NSEC or NSEC3 record')
        : await this.unsigned(near, near);
      return v.status === 'secure' ? bogus('BOGUS_DENIAL', 'no NSEC or NSEC3 record') : v;
    }
    const nsec: NsecRecord[] = [];
    const nsec3: Nsec3Record[] = [];
    let anchor = '';
    for (const s of sets) {
      const v = await this.signedOrNot(s, near, topDown);
      if (v.status !== 'secure') return v;
      anchor = v.anchor;
      for (const rec of s.records) {
        const d = s.type === T_NSEC ? readNsec(s.key, rec.rdata) : readNsec3(s.key, rec.rdata);
        if (!d) return bogus('BOGUS_MALFORMED', `a malformed denial record at ${keyToName(s.key)}`);
        if ('hash' in d) nsec3.push(d);
        else nsec.push(d);
      }
    }
    const limit = this.host.nsec3MaxIterations ?? NSEC3_MAX_ITERATIONS;
    const costly = nsec3.find((n) => n.iterations > limit);
    if (costly) {
      return insecure(
        'INSECURE_NSEC3_ITERATIONS',
        keyToName(costly.zone),
        `NSEC3 with ${costly.iterations} iterations, above the ${limit} this validator hashes (RFC 9276 section 3.2)`,
        anchor,
        { rrset: nsec3Owner(costly) },
      );
    }
    return { set: { nsec, nsec3 }, how: nsec.length > 0 ? 'NSEC' : 'NSEC3', anchor };
  }

  /** Unsigned data: DS queries down from the anchor; insecure at an unsigned delegation, else bogus. */
  private async unsigned(near: string, owner: string): Promise<Verdict> {
    const anchor = this.anchorFor(near);
    if (anchor === undefined) return noAnchor(owner);
    const top = await this.zoneKeys(anchor);
    if (top.status !== 'secure') return top;
    const depth = keyLabelCount(near);
    for (let n = keyLabelCount(anchor) + 1; n <= depth; n++) {
      const st = await this.dsState(keyAncestor(near, n), true);
      if (st.status === 'ds') {
        const z = await this.zoneKeys(keyAncestor(near, n));
        if (z.status !== 'secure') return z;
        continue;
      }
      if (st.status === 'not-a-cut') continue;
      return st;
    }
    return bogus(
      'BOGUS_NO_SIGNATURE',
      `${keyToName(owner)} is in a signed zone but comes without an RRSIG`,
    );
  }

  /** An RRset with RRSIGs: verified with its signer's keys (its signer's own verdict when not secure). */
  private async verifySet(set: SignedSet): Promise<Verdict & { labels?: number }> {
    const f = set.sigs
      .map((g) => rrsigFields(g.rdata))
      .find((x) => x !== undefined && keyIsSubdomain(set.key, x.signer));
    const what = `${keyToName(set.key)} type ${set.type}`;
    if (!f)
      return about(await this.unsigned(set.key, set.key), { rrset: rrsetOf(set.key, set.type) });
    const state = await this.zoneKeys(f.signer);
    if (state.status !== 'secure') return state;
    const check = await checkSignatures(set, f.signer, state.keys, this.crypto, this.host.now());
    if (!check.ok)
      return bogus(check.code, `${what}: ${check.detail}`, keyToName(f.signer), {
        rrset: rrsetOf(set.key, set.type),
        ...keyOf(check),
      });
    return {
      status: 'secure',
      zone: keyToName(f.signer),
      anchor: state.anchor,
      labels: check.labels,
    };
  }

  /** The verdict of one lookup from its wire responses, one per CNAME restart. */
  async validate(qname: string, qtype: number, responses: readonly Uint8Array[]): Promise<Verdict> {
    let name: string;
    try {
      name = nameKey(qname);
    } catch {
      return bogus('BOGUS_MALFORMED', `${qname} is not a domain name`);
    }
    const verdicts: Verdict[] = [];
    for (let i = 0; i < responses.length; i++) {
      const r = readResponse(responses[i]!);
      if (!r) return bogus('BOGUS_MALFORMED', `the response for ${qname} does not decode`);
      const step = await this.answerChain(r, name, qtype, verdicts);
      if (step.done) return combine(verdicts)!;
      name = step.name;
    }
    const last = readResponse(responses[responses.length - 1] ?? new Uint8Array(0));
    if (!last) return bogus('BOGUS_MALFORMED', `no response for ${qname}`);
    verdicts.push(await this.negative(last, name, qtype));
    return combine(verdicts)!;
  }

  /** Follow the answer section from `name`: done at the qtype RRset, else where the chain ends. */
  private async answerChain(
    r: ReadResponse,
    start: string,
    qtype: number,
    verdicts: Verdict[],
  ): Promise<{ done: boolean; name: string }> {
    const sets = signedSets(r.answer);
    let name = start;
    for (let hop = 0; hop < 16; hop++) {
      const target = sets.find((s) => s.key === name && s.type === qtype);
      if (target) {
        verdicts.push(await this.answerSet(target, r));
        return { done: true, name };
      }
      const dname = sets.find(
        (s) => s.type === T_DNAME && s.key !== name && keyIsSubdomain(name, s.key),
      );
      if (dname) {
        verdicts.push(await this.verifySet(dname));
        const rd = dname.records[0]!.rdata;
        const synthesized = name.slice(0, name.length - dname.key.length) + wireToKey(rd);
        const cname = sets.find((s) => s.key === name && s.type === T_CNAME);
        if (
          synthesized.length > 255 ||
          (cname && wireToKey(cname.records[0]!.rdata) !== synthesized)
        ) {
          verdicts.push(
            bogus(
              'BOGUS_DNAME',
              `the CNAME at ${keyToName(name)} is not what the DNAME at ${keyToName(dname.key)} synthesises`,
              undefined,
              { rrset: rrsetOf(name, T_CNAME) },
            ),
          );
          return { done: true, name };
        }
        name = synthesized;
        continue;
      }
      const cname = sets.find((s) => s.key === name && s.type === T_CNAME);
      if (!cname) break;
      verdicts.push(await this.answerSet(cname, r));
      name = wireToKey(cname.records[0]!.rdata);
    }
    return { done: false, name };
  }

  /** A positive RRset: its signatures, and for a wildcard expansion the proof that the name itself does not exist. */
  private async answerSet(set: SignedSet, r: ReadResponse): Promise<Verdict> {
    const v = await this.verifySet(set);
    if (v.status !== 'secure' || v.labels === undefined || v.labels >= keyLabelCount(set.key))
      return strip(v);
    const denial = await this.denialOf(r, set.key, false);
    if ('set' in denial && provesWildcard(denial.set, set.key, v.labels)) return strip(v);
    return bogus(
      'BOGUS_DENIAL',
      `${keyToName(set.key)} is a wildcard expansion without proof that the name does not exist`,
      v.zone,
      { rrset: rrsetOf(set.key, set.type) },
    );
  }

  /** NXDOMAIN or NODATA for (name, qtype): its NSEC/NSEC3 proof. */
  private async negative(r: ReadResponse, name: string, qtype: number): Promise<Verdict> {
    const asked = { rrset: rrsetOf(name, qtype) };
    const denial = await this.denialOf(r, name, false);
    if (!('set' in denial)) return about(denial, asked);
    const what = `${keyToName(name)} type ${qtype}`;
    if (r.rcode === 3) {
      if (provesNxdomain(denial.set, name))
        return { status: 'secure', zone: zoneOf(r) ?? '', anchor: denial.anchor };
      return bogus('BOGUS_DENIAL', `NXDOMAIN for ${what} without proof`, undefined, asked);
    }
    const nodata = provesNodata(denial.set, name, qtype);
    if (nodata === 'opt-out') return optOut(name, denial.anchor, asked);
    if (nodata) return { status: 'secure', zone: zoneOf(r) ?? '', anchor: denial.anchor };
    return bogus('BOGUS_DENIAL', `no data for ${what} without proof`, undefined, asked);
  }
}

const noAnchor = (key: string) =>
  insecure('INSECURE_NO_ANCHOR', keyToName(key), `no trust anchor at or above ${keyToName(key)}`);

const optOut = (key: string, anchor: string, asked: VerdictAbout) =>
  insecure(
    'INSECURE_OPT_OUT',
    keyToName(key),
    `an NSEC3 opt-out span covers ${keyToName(key)}`,
    anchor,
    asked,
  );

function strip(v: Verdict & { labels?: number }): Verdict {
  if (v.status !== 'secure') return v;
  return { status: 'secure', zone: v.zone, anchor: v.anchor };
}

/** The zone of a negative response: the signer of its first signed NSEC/NSEC3. */
function zoneOf(r: ReadResponse): string | undefined {
  for (const s of signedSets(r.authority)) {
    const f = s.sigs[0] ? rrsigFields(s.sigs[0].rdata) : undefined;
    if (f) return keyToName(f.signer);
  }
  return undefined;
}

/** The RRset a verdict is about, in presentation form. */
function rrsetOf(key: string, type: number): { name: string; type: string } {
  return { name: keyToName(key), type: typeName(type) };
}

/** The NSEC3 record's owner (its hash under the zone). */
function nsec3Owner(n: Nsec3Record): { name: string; type: string } {
  const zone = keyToName(n.zone);
  return { name: zone === '.' ? `${n.hash}.` : `${n.hash}.${zone}`, type: 'NSEC3' };
}

/** The key tag and algorithm of a failed signature check, where it names one. */
function keyOf(c: { keyTag?: number; algorithm?: number }): VerdictAbout {
  return c.keyTag === undefined ? {} : { keyTag: c.keyTag, algorithm: c.algorithm ?? 0 };
}

/** The key tag and algorithm a DS record or DNSKEY anchor names. */
function refAlgorithm(ref: KeyRef | undefined): VerdictAbout {
  if (ref === undefined) return {};
  if ('ds' in ref) return { keyTag: ref.ds.tag, algorithm: ref.ds.algorithm };
  return { algorithm: ref.dnskey[3] ?? 0 };
}
