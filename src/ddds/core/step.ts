/**
 * One DDDS step (RFC 3402 section 3.3, steps 2-5) over the NAPTR RRset of one
 * key (RFC 3403, RFC 3404). Pure: the driver does the lookups. Order of work
 * (digest section 14):
 * 1. Records with unusable flags are dropped before ordering (RFC 3404 4.3).
 * 2. Stable sort by ORDER, then PREFERENCE (decisions.md item 4).
 * 3. Each record is rewritten against the AUS; the first successful rewrite
 *    locks its ORDER (RFC 3403 section 4.1), even when its services are
 *    unusable (RFC 3404 section 6).
 * 4. The services must serve the wanted service (RFC 3402 section 3.3 step 4).
 * 5. A non-terminal output is the next key: a regexp output through IDNA, a
 *    REPLACEMENT verbatim.
 */
import { absoluteLowerName } from '../../kit/core/names.ts';
import { defaultToDnsKey, type DnsKeyResult, type ToDnsKey } from './key.ts';
import { BoundedMemo } from '../../kit/core/memo.ts';
import { fail, ok, type Err, type Failure, type Ok } from '../../kit/core/result.ts';
import {
  checkServicesCompiled,
  compileRecord,
  rewriteCompiled,
  stepRecord,
  type CompiledRecord,
  type NaptrRecord,
} from './naptr.ts';

export type { NaptrRecord } from './naptr.ts';
import type { Service } from './trace.ts';
import type { ResolutionCode } from './codes.ts';

/** Resolution service the client wants (RFC 2169 / RFC 2483 names; N2x and I2x are synonyms). */
export type WantedService = Service | (string & {});

export interface StepInput {
  /** The Application Unique String: every rule applies to it, never to a previous output. */
  aus: string;
  /** The key whose RRset `records` is (for messages and the trace). */
  key: string;
  /** The NAPTR RRset in response order. */
  records: readonly NaptrRecord[];
  service: WantedService;
  /** Key conversion for regexp outputs (default: the URN library's `toDnsKey`, key.ts). */
  toDnsKey?: ToDnsKey;
}

export type RecordFate = {
  record: NaptrRecord;
  /** Position in the RRset as received. */
  index: number;
  fate: 'used' | 'skipped';
  reason: string;
  code: ResolutionCode;
};

export type StepOutcome =
  | {
      kind: 'next';
      /** Absolute DNS name after IDNA (toDnsKey), with its trailing dot. */
      key: string;
      /** The rewrite output before key conversion. */
      rewritten: string;
      record: NaptrRecord;
      via: 'regexp' | 'replacement';
    }
  | {
      kind: 'terminal';
      flag: 'U' | 'S' | 'A';
      /** U: the URI. S, A: the absolute domain name to look up (SRV, or A/AAAA), as given. */
      output: string;
      record: NaptrRecord;
      protocol: string | undefined;
      services: readonly string[];
      via: 'regexp' | 'replacement';
    }
  | {
      kind: 'handoff';
      flag: 'P';
      output: string;
      record: NaptrRecord;
      protocol: string | undefined;
    }
  | { kind: 'failure'; code: ResolutionCode; message: string };

export interface StepResult {
  outcome: StepOutcome;
  considered: readonly RecordFate[];
}

/**
 * A REPLACEMENT (or S/A target) as given: lowercased, trailing dot, label
 * lengths checked (`_` is legal, as in SRV owners); non-ASCII or
 * percent-encoded text goes through IDNA instead.
 */
function verbatimName(text: string, toDnsKey: ToDnsKey): DnsKeyResult {
  if (/[^\x21-\x7e]/.test(text) || text.includes('%')) return toDnsKey(text);
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name === '') return fail('DDDS_KEY_EMPTY', 'the name is the root');
  if (name.length > 253)
    return fail('DDDS_KEY_TOO_LONG', `name is ${name.length} characters; at most 253`);
  const bad = name.split('.').find((label) => label === '' || label.length > 63);
  if (bad !== undefined)
    return fail(
      bad === '' ? 'DDDS_KEY_EMPTY_LABEL' : 'DDDS_KEY_LABEL_TOO_LONG',
      `name ${JSON.stringify(text)} has ${bad === '' ? 'an empty label' : 'a label over 63 octets'}`,
    );
  return ok(`${name.toLowerCase()}.`);
}

const KEY_MEMO_MAX = 4096;
/* eslint-disable no-restricted-syntax -- module state: bounded memos of pure conversions, only
   with the default conversion (a caller's own conversion is never memoised). */
const keyMemo = new BoundedMemo<string, DnsKeyResult>(KEY_MEMO_MAX);
const nameMemo = new BoundedMemo<string, DnsKeyResult>(KEY_MEMO_MAX);
/* eslint-enable no-restricted-syntax */
const defaultVerbatim = (text: string) => verbatimName(text, defaultToDnsKey);

function convertKey(text: string, toDnsKey: ToDnsKey): DnsKeyResult {
  return toDnsKey === defaultToDnsKey
    ? keyMemo.getOrCompute(text, defaultToDnsKey)
    : toDnsKey(text);
}

function convertName(text: string, toDnsKey: ToDnsKey): DnsKeyResult {
  return toDnsKey === defaultToDnsKey
    ? nameMemo.getOrCompute(text, defaultVerbatim)
    : verbatimName(text, toDnsKey);
}

/** A NAPTR record as one line of text (in messages, the trace and the page). */
export function naptrText(r: NaptrRecord): string {
  return `${r.order} ${r.preference} ${JSON.stringify(r.flags)} ${JSON.stringify(r.services)} ${JSON.stringify(r.regexp)} ${r.replacement === '' ? '.' : r.replacement}`;
}

/** Records in processing order: stable sort by ORDER, then PREFERENCE (RFC 3403 section 4.1). */
export function sortRecords<T extends Pick<NaptrRecord, 'order' | 'preference'>>(
  records: readonly T[],
): T[] {
  return [...records].sort((a, b) => a.order - b.order || a.preference - b.preference);
}

/** The fate of each record of a step, as the step reports them (`stepRecord`). */
class Fates {
  private readonly records: readonly NaptrRecord[];
  private readonly list: (RecordFate | undefined)[];
  private fated = 0;
  constructor(records: readonly NaptrRecord[]) {
    this.records = records;
    this.list = new Array<RecordFate | undefined>(records.length);
  }
  /** The record at `index` as the step reports it (NAPTR fields and TTL). */
  plainAt(index: number): NaptrRecord {
    return stepRecord(this.records[index] as NaptrRecord);
  }
  set(index: number, fate: 'used' | 'skipped', code: ResolutionCode, reason: string): void {
    if (index >= this.records.length) return;
    if (this.list[index] === undefined) this.fated++;
    this.list[index] = { record: this.plainAt(index), index, fate, code, reason };
  }
  considered(): RecordFate[] {
    return this.fated === this.list.length
      ? (this.list as RecordFate[])
      : this.list.filter((f): f is RecordFate => f !== undefined);
  }
}

interface Candidate {
  readonly record: NaptrRecord;
  readonly index: number;
  readonly c: CompiledRecord;
}

/** Steps 1-2: records with unusable flags dropped, the rest in stable ORDER, PREFERENCE order. */
function candidatesInOrder(records: readonly NaptrRecord[], fates: Fates): Candidate[] {
  const candidates: Candidate[] = [];
  records.forEach((record, index) => {
    const c = compileRecord(record);
    if (c.flags.kind !== 'unusable') candidates.push({ record, index, c });
    else fates.set(index, 'skipped', c.flags.code, `${c.flags.message}; dropped before ordering`);
  });
  return candidates.sort(
    (a, b) => a.record.order - b.record.order || a.record.preference - b.record.preference,
  );
}

/** Run one DDDS step. Never throws on record content: a record fate or a coded failure. */
export function dddsStep(input: StepInput): StepResult {
  const toDnsKey = input.toDnsKey ?? defaultToDnsKey;
  const fates = new Fates(input.records);
  // 3-5. Walk.
  let locked: { order: number; index: number } | undefined;
  let chosen: StepOutcome | undefined;
  for (const { record, index, c } of candidatesInOrder(input.records, fates)) {
    if (locked !== undefined && record.order !== locked.order) {
      fates.set(
        index,
        'skipped',
        'DDDS_ORDER_LOCKED',
        `ORDER ${locked.order} is locked by record #${locked.index} (RFC 3403 section 4.1: records with a different ORDER MUST NOT be considered)`,
      );
      continue;
    }
    if (chosen !== undefined) {
      fates.set(index, 'skipped', 'DDDS_NOT_REACHED', 'an earlier record was used');
      continue;
    }
    const rewrite = rewriteCompiled(c, input.aus);
    if (!rewrite.ok) {
      fates.set(index, 'skipped', rewrite.error.code, rewrite.error.message);
      continue;
    }
    if (locked === undefined) locked = { order: record.order, index };
    const check = checkServicesCompiled(c, input.service);
    if (!check.usable) {
      fates.set(
        index,
        'skipped',
        check.code,
        `rewrite gave ${JSON.stringify(rewrite.value.output)} but the services are unusable: ${check.reason}`,
      );
      continue;
    }
    chosen = outcomeOf(index, c, rewrite.value, check.reason, toDnsKey, fates);
  }
  const considered = fates.considered();
  return { outcome: chosen ?? noOutcome(input, considered), considered };
}

/** Step 5: the next key, hand-off or terminal output; undefined when the output is no usable name. */
function outcomeOf(
  index: number,
  c: CompiledRecord,
  rewritten: { readonly output: string; readonly via: 'regexp' | 'replacement' },
  why: string,
  toDnsKey: ToDnsKey,
  fates: Fates,
): StepOutcome | undefined {
  const flags = c.flags;
  const services = c.services;
  const protocol = services.ok ? services.value.protocol : undefined;
  const { output, via } = rewritten;
  const record = fates.plainAt(index);
  const used = (code: ResolutionCode, reason: string) => fates.set(index, 'used', code, reason);
  const skipped = (reason: string): undefined =>
    void fates.set(index, 'skipped', 'DDDS_BAD_KEY', reason);
  if (flags.kind === 'non-terminal') {
    const key =
      via === 'replacement' ? convertName(output, toDnsKey) : convertKey(output, toDnsKey);
    if (!key.ok)
      return skipped(
        `rewrite gave ${JSON.stringify(output)}, which is not a valid key: ${key.error.code} ${key.error.message}`,
      );
    used('DDDS_NEXT_KEY', `${via} gave ${JSON.stringify(output)}; next key ${key.value} (${why})`);
    return { kind: 'next', key: key.value, rewritten: output, record, via };
  }
  if (flags.kind !== 'flag') return undefined; // unreachable: unusable flags were dropped
  if (flags.flag === 'P') {
    used('DDDS_HANDOFF', `hand-off with ${JSON.stringify(output)} (${why})`);
    return { kind: 'handoff', flag: 'P', output, record, protocol };
  }
  let target = output;
  if (flags.flag === 'S' || flags.flag === 'A') {
    const name = convertName(output, toDnsKey);
    if (!name.ok)
      return skipped(
        `'${flags.flag}' output ${JSON.stringify(output)} is not a domain name: ${name.error.code} ${name.error.message}`,
      );
    target = name.value;
  }
  used('DDDS_TERMINAL', `terminal '${flags.flag}': ${via} gave ${JSON.stringify(target)} (${why})`);
  const list = services.ok ? services.value.services : [];
  return {
    kind: 'terminal',
    flag: flags.flag,
    output: target,
    record,
    protocol,
    services: list,
    via,
  };
}

/** The failure of a step that chose no record. */
function noOutcome(input: StepInput, considered: readonly RecordFate[]): StepOutcome {
  if (input.records.length === 0) {
    return {
      kind: 'failure',
      code: 'DDDS_NO_RECORDS',
      message: `no NAPTR records at ${input.key}`,
    };
  }
  const summary = considered
    .map((f) => `#${f.index} [${naptrText(f.record)}] ${f.code}`)
    .join('; ');
  return {
    kind: 'failure',
    code: 'DDDS_NO_VALID_OUTPUT',
    message: `no rule at ${input.key} gives a usable result for ${input.service} (RFC 3402 section 3.3: "no valid output"): ${summary}`,
  };
}

/** The First Well Known Rule: the NID lowercased plus `.urn.arpa.` (RFC 3404 4.2, 4.5; RFC 8141 2.1). */
export function firstKey(nid: string): string {
  return `${nid.toLowerCase()}.urn.arpa.`;
}

/** Default limit on DDDS steps (decisions.md item 4). */
export const DEFAULT_STEP_LIMIT = 10;

export type LoopCode = 'DDDS_LOOP' | 'DDDS_STEP_LIMIT';

/** `visit` allowed the key: `value` is its step number, from 1. */
export type LoopOk = Ok<number>;

/** `visit` refused the key: `error` is the failure. */
export type LoopErr = Err<Failure<LoopCode>>;

/** A `Result<number, Failure<LoopCode>>`. */
export type LoopCheck = LoopOk | LoopErr;

/**
 * Loop and step-limit guard: keys compared case-insensitively, trailing dot
 * normalised (digest 15.29); a repeat is a loop (RFC 3404 appendix A).
 */
export class DddsLoopGuard {
  readonly limit: number;
  /** Normalised keys in visiting order (a loop check over at most `limit` keys: no Map needed). */
  readonly #path: string[] = [];

  constructor(limit: number = DEFAULT_STEP_LIMIT) {
    this.limit = limit;
  }

  /** The key as the guard compares it: lowercase, one trailing dot. */
  static normalize(key: string): string {
    return absoluteLowerName(key);
  }

  /** Record a visit to `key` before querying it. */
  visit(key: string): LoopCheck {
    const norm = DddsLoopGuard.normalize(key);
    const previous = this.#path.indexOf(norm);
    if (previous >= 0) {
      return fail<LoopCode>(
        'DDDS_LOOP',
        `loop: key ${norm} was already visited at step ${previous + 1} (path ${[...this.#path, norm].join(' -> ')})`,
      );
    }
    if (this.#path.length >= this.limit) {
      return fail<LoopCode>(
        'DDDS_STEP_LIMIT',
        `more than ${this.limit} DDDS steps (path ${[...this.#path, norm].join(' -> ')})`,
      );
    }
    this.#path.push(norm);
    return ok(this.#path.length);
  }

  get steps(): number {
    return this.#path.length;
  }

  get path(): readonly string[] {
    return [...this.#path];
  }
}
