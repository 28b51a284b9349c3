/** The client's warm-path memos around the pure walk, kept by a `ClientMemos` per client. */
import type { NaptrRecord, StepResult } from '../ddds/core/step.ts';
import { stepRecord } from '../ddds/core/naptr.ts';
import type { CodedError, Service } from '../ddds/core/trace.ts';
import { prepareWalk, type StepMemoStore, type WalkStart } from '../ddds/core/walk.ts';
import type { DnsLookupResult } from './stub.ts';
import { recordsOfType } from '../dns/core/rr/record.ts';
import { BoundedMemo } from '../kit/core/memo.ts';

/** The NAPTR records of a lookup result, in response order (model records are NaptrRecords). */
export function toNaptrRecords(r: DnsLookupResult): readonly NaptrRecord[] {
  return recordsOfType(r.records, 'NAPTR');
}

const STEP_MEMO_PER_RRSET = 4096;
const PREPARED_MAX = 4096;
/** Inputs seen once, in a direct-mapped table (a cheap hash of the text picks the slot). */
const SEEN_SLOTS = 4096;

export interface Prepared {
  readonly start: WalkStart | CodedError;
  /** Seen before: only then are step results memoised (distinct URNs do not fill the memo). */
  repeat: boolean;
  /** The step memo's key per service (one string per input: its hash computed once). */
  readonly memo: Partial<Record<Service, { readonly store: StepMemoStore; readonly key: string }>>;
}

function seenSlot(text: string): number {
  const n = text.length;
  let h = n;
  // The end of a URN varies most (numbers, dates); mix the last characters and a few others.
  for (let i = Math.max(0, n - 12); i < n; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  h = (h * 31 + text.charCodeAt(n >> 1)) | 0;
  h = (h * 31 + text.charCodeAt(n >> 2)) | 0;
  return (h ^ (h >>> 13)) & (SEEN_SLOTS - 1);
}

/**
 * The memos of one client: the step's view of a cached result's NAPTR
 * records, step results per cached RRset object (dying with the cache entry),
 * and `prepareWalk` per input text from its second sighting.
 */
export class ClientMemos {
  readonly #naptr = new WeakMap<DnsLookupResult, readonly NaptrRecord[]>();
  readonly #steps = new WeakMap<object, BoundedMemo<string, StepResult>>();
  readonly #prepared = new BoundedMemo<string, Prepared>(PREPARED_MAX);
  readonly #seen: (string | undefined)[] = new Array<string | undefined>(SEEN_SLOTS);

  readonly stepStore: StepMemoStore = {
    get: (rrset, key) => this.#steps.get(rrset)?.get(key),
    set: (rrset, key, step) => {
      let memo = this.#steps.get(rrset);
      if (memo === undefined) this.#steps.set(rrset, (memo = new BoundedMemo(STEP_MEMO_PER_RRSET)));
      memo.set(key, step);
    },
  };

  /** The NAPTR records of a result; with `memo`, as the step reports them, made once per result. */
  naptrRecords(r: DnsLookupResult, memo: boolean): readonly NaptrRecord[] {
    const records = toNaptrRecords(r);
    if (!memo) return records;
    let out = this.#naptr.get(r);
    if (out === undefined) {
      out = records.map(stepRecord);
      this.#naptr.set(r, out);
    }
    return out;
  }

  /** The step memo and its key for this input and service. */
  memoFor(
    p: Prepared,
    service: Service,
  ): { readonly store: StepMemoStore; readonly key: string } | undefined {
    const start = p.start;
    if ('code' in start) return undefined;
    let m = p.memo[service];
    if (m === undefined) {
      m = { store: this.stepStore, key: `${service}\n${start.aus}` };
      p.memo[service] = m;
    }
    return m;
  }

  /** `prepareWalk` memoised on the input text (it is pure), from its second sighting. */
  prepare(input: string): Prepared {
    let p = this.#prepared.get(input);
    if (p !== undefined) {
      p.repeat = true;
      return p;
    }
    p = { start: prepareWalk(input), repeat: false, memo: {} };
    // From the second sighting on: distinct URNs cost a slot write, not a Map entry.
    const slot = seenSlot(input);
    if (this.#seen[slot] === input) {
      p.repeat = true;
      this.#prepared.set(input, p);
    } else {
      this.#seen[slot] = input;
    }
    return p;
  }
}
