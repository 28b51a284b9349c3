/**
 * The one zone path (`zone check`, `serve`, transfers in, inline signing, `dev`): reading and
 * parsing (`load.ts`), the build's checks, the NAPTR lint and `; expect`, and a signed file's
 * RRSIGs and NSEC/NSEC3 chain. An error refuses the zone; with `strict`, a warning too. An IXFR
 * takes `zoneFromDifference`: the difference applied, the names it touched checked the same way.
 */
import type { ResourceRecord, Zone, ZoneDiagnostic } from '../../dns/core/zone/model.ts';
import {
  checkExpectations,
  lintNaptrRecords,
  lintNaptrRows,
} from '../../ddds/core/lint/naptr-lint.ts';
import { recordRows, storeRows } from '../../ddds/core/lint/rows.ts';
import { StoreZone } from '../../dns/core/zone/views.ts';
import { lintDelegationCuts } from '../../ddds/core/lint/cuts.ts';
import { checkDenialChains } from '../../dnssec/core/chain-check.ts';
import { verifyZoneSignatures } from '../../dnssec/verify.ts';
import { signWithState, type InlineSignResult, type InlineSigning } from '../../dnssec/inline.ts';
import { loadZoneFile, type FileStamp, type LoadOptions, type LoadResult } from './load.ts';
import {
  patchZone,
  touchedCutFindings,
  type PatchedZone,
  type ZoneChanges,
} from '../../dns/core/zone/patch.ts';
import type { IndexedZone } from '../core/zone-lookup.ts';
import { indexPatched } from './transfer.ts';
import { TYPE_CNAME, TYPE_NAPTR, TYPE_NS } from '../../dns/core/rr/types.ts';

export interface ZonePathOptions extends LoadOptions {
  /** Warnings refuse the zone too. */
  readonly strict?: boolean;
  /** Inline signing: a zone with keys in the folder is signed once it passed. */
  readonly sign?: InlineSigning | undefined;
  /** SOA serial of the version served (inline signing goes past it). */
  readonly previousSerial?: number | undefined;
  /** The signed version served: inline signing keeps the signatures of the RRsets it has unchanged. */
  readonly signedBefore?: Zone | undefined;
  /** Or the token of the signed version served, when this thread signed it (`InlineSignResult.resigned`). */
  readonly servedToken?: string | undefined;
  /** Seconds since the epoch the RRSIGs of a signed file are checked against (default: now). */
  readonly now?: number;
}

export interface ZonePathResult {
  /** The zone to serve (signed, with inline signing), only when nothing refused it. */
  readonly zone?: Zone;
  /** Every finding in the order of the text (`inLineOrder`); those of signing last. */
  readonly diagnostics: readonly ZoneDiagnostic[];
  readonly file: string;
  readonly origin?: string;
  /** The file built into a zone (it may still be refused by the lint, the DNSSEC checks or `strict`). */
  readonly built: boolean;
  /** The parsed records in file order, made on first access (`zone check` counts them). */
  readonly records: readonly ResourceRecord[];
  /** What inline signing did, when it signed. */
  readonly signed?: InlineSignResult['signed'];
  /** Signed against `servedToken`: the names re-signed, in place of `zone`. */
  readonly resigned?: InlineSignResult['resigned'];
  /** Signed against `servedToken`, and more than content changed: load again with `signedBefore`. */
  readonly needBefore?: true;
  /** Size and modification time of the file read (when it was opened). */
  readonly stat?: FileStamp;
}

/** Whether a finding refuses the zone: an error, or with `strict` any finding. */
export function refuses(d: ZoneDiagnostic, strict = false): boolean {
  return strict || d.severity === 'error';
}

/** The findings of the checks beyond the build: NAPTR lint, `; expect`, a signed file's DNSSEC. */
function contentFindings(r: LoadResult, now: number): ZoneDiagnostic[] {
  const zone = r.zone;
  // A built zone is linted from its store's columns (no record views made).
  const rows = zone instanceof StoreZone ? storeRows(zone.store) : recordRows(r.naptr);
  return [
    ...lintNaptrRows(rows),
    ...(r.expects.length > 0 ? checkExpectations(r.expects, r.naptr) : []),
    // A delegation below the apex needs a zone cut, or a secondary holding only this zone answers NXDOMAIN.
    ...(zone ? lintDelegationCuts(zone, rows) : []),
    // A signed file: every authoritative RRset has a valid, current RRSIG (as dnssec-verify) ...
    ...(zone ? verifyZoneSignatures(zone, now) : []),
    // ... and a complete, closed NSEC or NSEC3 chain whose bitmaps match.
    ...(zone ? checkDenialChains(zone) : []),
  ];
}

/** Read, parse, build and check one zone source; with inline signing, sign it once it passed. */
export async function zoneFromSource(
  file: string,
  options: ZonePathOptions = {},
): Promise<ZonePathResult> {
  const { strict = false, sign, previousSerial, signedBefore, servedToken, now, ...load } = options;
  const r = await loadZoneFile(file, load);
  const at = now ?? Math.floor(Date.now() / 1000);
  const diagnostics = inLineOrder([...r.diagnostics, ...contentFindings(r, at)]);
  const base = {
    file: r.file,
    ...(r.origin !== undefined ? { origin: r.origin } : {}),
    built: r.zone !== undefined,
    ...(r.stat ? { stat: r.stat } : {}),
  };
  // The records stay unmade until asked for (a spread would make them: the getter is added last).
  const withRecords = (o: Omit<ZonePathResult, 'records'>): ZonePathResult =>
    Object.defineProperty(o as ZonePathResult, 'records', {
      get: () => r.records,
      enumerable: true,
    });
  if (!r.zone || diagnostics.some((d) => refuses(d, strict)))
    return withRecords({ ...base, diagnostics });
  if (!sign) return withRecords({ ...base, zone: r.zone, diagnostics });
  const s = await signWithState(
    file,
    r.zone,
    sign,
    previousSerial,
    load,
    signedBefore,
    servedToken,
  );
  return withRecords({
    ...base,
    ...(s.zone ? { zone: s.zone } : {}),
    ...(s.resigned ? { resigned: s.resigned } : {}),
    ...(s.needBefore ? { needBefore: s.needBefore } : {}),
    diagnostics: [...diagnostics, ...s.diagnostics],
    ...(s.signed ? { signed: s.signed } : {}),
  });
}

/** Diagnostics in text order: by file (first appearance), line, column; those without a position last. */
export function inLineOrder(ds: readonly ZoneDiagnostic[]): ZoneDiagnostic[] {
  const files = new Map<string, number>();
  for (const d of ds)
    if (d.position && !files.has(d.position.file)) files.set(d.position.file, files.size);
  const key = (d: ZoneDiagnostic): [number, number, number] =>
    d.position
      ? [files.get(d.position.file)!, d.position.line, d.position.column]
      : [Number.MAX_SAFE_INTEGER, 0, 0];
  return ds
    .map((d, i) => ({ d, i, k: key(d) }))
    .sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1] || a.k[2] - b.k[2] || a.i - b.i)
    .map((x) => x.d);
}

/** What applying a difference gave: the zone to serve and its index, or why not. */
export type DifferenceResult =
  | {
      readonly kind: 'patched';
      readonly zone: PatchedZone;
      readonly indexed: IndexedZone;
      /** Findings about the touched names (none of severity error). */
      readonly diagnostics: readonly ZoneDiagnostic[];
    }
  /** A deletion of a record the zone does not hold. */
  | { readonly kind: 'mismatch'; readonly message: string }
  /** Not applicable by difference (a signed zone): load the whole zone. */
  | { readonly kind: 'unsupported'; readonly message: string }
  /** The changed zone is refused by the checks of its touched names. */
  | { readonly kind: 'refused'; readonly diagnostics: readonly ZoneDiagnostic[] };

/** The checks of a zone build, for the names a difference touched. */
function touchedFindings(zone: PatchedZone, touched: readonly string[]): ZoneDiagnostic[] {
  const out: ZoneDiagnostic[] = [];
  const naptr: ResourceRecord[] = [];
  for (const name of touched) {
    const node = zone.nodes.get(name);
    if (node === undefined) continue;
    const cname = node.rrsets.get(TYPE_CNAME);
    if (cname && cname.records.length > 1)
      out.push({
        code: 'ZONE_MULTIPLE_CNAME',
        message: `${name} has more than one CNAME`,
        severity: 'error',
      });
    if (cname && node.rrsets.size > 1)
      out.push({
        code: 'ZONE_CNAME_AND_OTHER',
        message: `${name} has a CNAME and other data`,
        severity: 'error',
      });
    naptr.push(...(node.rrsets.get(TYPE_NAPTR)?.records ?? []));
  }
  if (!zone.nodes.get(zone.origin)?.rrsets.has(TYPE_NS))
    out.push({
      code: 'ZONE_NO_APEX_NS',
      message: `no NS at the apex ${zone.origin}`,
      severity: 'error',
    });
  return [...out, ...touchedCutFindings(zone, touched), ...lintNaptrRecords(naptr)];
}

/** Apply an IXFR step's difference to the zone served, in its time, and check the names it touched. */
export function zoneFromDifference(
  from: Zone,
  changes: ZoneChanges,
  options: { readonly strict?: boolean } = {},
): DifferenceResult {
  const r = patchZone(from, changes);
  if (r.kind !== 'patched') return r;
  const diagnostics = touchedFindings(r.zone, r.touched);
  if (diagnostics.some((d) => refuses(d, options.strict))) return { kind: 'refused', diagnostics };
  return { kind: 'patched', zone: r.zone, indexed: indexPatched(r.zone), diagnostics };
}
