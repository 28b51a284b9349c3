/**
 * Zone transfers out (AXFR, RFC 5936; IXFR, RFC 1995) and the history of
 * differences IXFR answers from. An ACL (RFC 5936 section 5) and a bound on
 * concurrent transfers (section 4.2) decide; everyone else gets REFUSED. A
 * transfer streams the snapshot it began with, waiting for the socket to
 * drain: a slow secondary holds one connection, not the server's memory.
 */
import { inCidr, type Cidr } from '../config/cidr.ts';
import { addressOctets } from '../kit/core/ip.ts';
import type { Zone } from '../dns/core/zone/model.ts';
import { nameKey } from '../dns/core/wire/name.ts';
import { TYPE_AXFR, TYPE_IXFR } from '../dns/core/rr/types.ts';
import { axfrCursor, type RecordCursor } from './core/records.ts';
import { messagePump } from './core/message.ts';
import { ixfrCursor, ixfrQuerySerial, planIxfr, type IxfrPlan } from './core/ixfr.ts';
import type { ZoneDiff } from './core/diff.ts';
import { condenseWhenSmaller } from './core/condense.ts';
import type { Engine } from '../authority/engine.ts';
import type { Logger } from '../authority/log.ts';
import type { LogSummary } from '../authority/log-summary.ts';
import {
  readTsig,
  TSIG_ERROR_NAMES,
  TsigSigner,
  verifyRequest,
  type TsigKey,
} from './core/tsig.ts';
import { malformedTsigResponse, nodeHmac, nowSeconds, tsigErrorResponse } from './tsig.ts';

/** Who may transfer: a request must come from `allow` and, when `requireKeys` is not empty, be signed with one of them. */
export interface TransferAcl {
  /** Address prefixes; empty: nobody. */
  readonly allow: readonly Cidr[];
  /** Wire keys of TSIG key names; empty: no key needed. */
  readonly requireKeys: ReadonlySet<string>;
}

export interface TransferOptions {
  /** The serve-wide ACL (`TransferAcl`). */
  readonly allow: readonly Cidr[];
  /** Transfers running at once; more get REFUSED. */
  readonly maxConcurrent: number;
  /** Most octets per transfer message. */
  readonly messageSize?: number;
  /** TSIG keys known, by the wire key of their name (RFC 8945). */
  readonly keys?: ReadonlyMap<string, TsigKey>;
  readonly requireKeys?: ReadonlySet<string>;
  /** A zone's own ACL (by origin), which admits besides the serve-wide one. */
  readonly zoneAcls?: ReadonlyMap<string, TransferAcl>;
  /** Answer IXFR from an older serial with one condensed difference (RFC 1995 section 6). */
  readonly condense?: boolean;
}

/** Whether an ACL admits a request from `bytes` signed with `keyKey` (undefined: unsigned). */
function admits(acl: TransferAcl, bytes: Uint8Array, keyKey: string | undefined): boolean {
  if (!acl.allow.some((c) => inCidr(bytes, c))) return false;
  return acl.requireKeys.size === 0 || (keyKey !== undefined && acl.requireKeys.has(keyKey));
}

/** What the TSIG of a request decided (RFC 8945 section 5.2). */
export type RequestAuth =
  | {
      readonly kind: 'ok';
      /** Signs the answer with the request's key (undefined: unsigned request). */
      readonly signer: TsigSigner | undefined;
      readonly key: string | undefined;
      /** The wire key of the key's name (undefined: unsigned). */
      readonly keyKey: string | undefined;
    }
  | { readonly kind: 'error'; readonly response: Uint8Array };

/** A request whose TSIG passed, or that has none. */
export type RequestAuthOk = Extract<RequestAuth, { kind: 'ok' }>;

export const UNSIGNED: RequestAuthOk = {
  kind: 'ok',
  signer: undefined,
  key: undefined,
  keyKey: undefined,
};

/** The question of a transfer query (opcode QUERY, class IN, AXFR or IXFR): name key, type, where it ends. */
export interface TransferQuestion {
  readonly key: string;
  readonly qtype: number;
  readonly questionEnd: number;
}

/** A transfer request as the query pipeline hands it over, its TSIG verified. */
export interface TransferRequest {
  readonly msg: Uint8Array;
  readonly question: TransferQuestion;
  readonly auth: RequestAuthOk;
  readonly source: string;
}

/** A transfer's messages (signed when the request was), for the listener to frame and write. */
export interface TransferStream {
  /** The next message, or undefined after the last. */
  next(): Uint8Array | undefined;
  /** Called once: the messages written, and the error that ended the stream early. */
  end(messages: number, error?: Error): void;
}

export class Transfers {
  readonly options: TransferOptions;
  /** Transfers by kind, refused and busy; `tsigFailed`: requests whose TSIG failed (BADKEY, BADSIG, BADTIME). */
  readonly stats = {
    axfr: 0,
    ixfr: 0,
    ixfrCurrent: 0,
    ixfrFull: 0,
    refused: 0,
    busy: 0,
    active: 0,
    tsigFailed: 0,
  };
  private readonly histories = new Map<string, ZoneDiff[]>();
  /** Condensed differences already computed, by origin then asked serial (reset with the history). */
  private readonly condensed = new Map<string, Map<number, readonly ZoneDiff[]>>();
  private zonesSeen: readonly Zone[] = [];
  private byKey = new Map<string, Zone>();
  private readonly log: Logger;

  constructor(options: TransferOptions, log: Logger) {
    this.options = options;
    this.log = log;
  }

  /** The IXFR history of a zone (oldest first), by origin. */
  history(origin: string): readonly ZoneDiff[] {
    return this.histories.get(origin) ?? [];
  }

  setHistory(origin: string, diffs: ZoneDiff[]): void {
    this.condensed.delete(origin);
    if (diffs.length === 0) this.histories.delete(origin);
    else this.histories.set(origin, diffs);
    const sent = this.onHistory?.(origin, diffs);
    if (sent) this.sync = Promise.all([this.sync, sent]).then(() => undefined);
  }

  private sync: Promise<void> = Promise.resolve();

  /** Resolves when every history change so far has reached the other answering threads. */
  synced(): Promise<void> {
    return this.sync;
  }

  /** Told of every history change (`serve --workers`: sent to the other answering threads). */
  onHistory: ((origin: string, diffs: readonly ZoneDiff[]) => Promise<void> | void) | undefined;

  allHistories(): ReadonlyMap<string, readonly ZoneDiff[]> {
    return this.histories;
  }

  /** Whether `address` (signed with the key `keyKey`, or not) may transfer the zone `origin`. */
  allowed(address: string, origin: string, keyKey?: string): boolean {
    const bytes = addressOctets(address);
    if (bytes === undefined) return false;
    const global: TransferAcl = {
      allow: this.options.allow,
      requireKeys: this.options.requireKeys ?? new Set(),
    };
    const own = this.options.zoneAcls?.get(origin);
    return admits(global, bytes, keyKey) || (own !== undefined && admits(own, bytes, keyKey));
  }

  /** The differences an incremental answer sends: condensed into one when that is smaller (and enabled). */
  private toSend(origin: string, serial: number, diffs: readonly ZoneDiff[]): readonly ZoneDiff[] {
    if (!this.options.condense || diffs.length < 2) return diffs;
    let memo = this.condensed.get(origin);
    if (memo === undefined) this.condensed.set(origin, (memo = new Map()));
    let out = memo.get(serial);
    if (out === undefined) memo.set(serial, (out = condenseWhenSmaller(diffs)));
    return out;
  }

  private zoneFor(engine: Engine, key: string): Zone | undefined {
    if (engine.zones !== this.zonesSeen) {
      this.zonesSeen = engine.zones;
      this.byKey = new Map(engine.zones.map((z) => [nameKey(z.origin), z]));
    }
    return this.byKey.get(key);
  }

  /** The TSIG of a request, checked first (RFC 8945 section 5.2): none, valid, or failed (answered now). */
  verify(msg: Uint8Array, questionEnd: number, source: string, summary: LogSummary): RequestAuth {
    const t = readTsig(msg);
    if (t === 'FORMERR') {
      this.stats.tsigFailed++;
      summary.note('xfr_tsig_failed', source, 'TSIG_MALFORMED');
      return { kind: 'error', response: malformedTsigResponse(msg, questionEnd) };
    }
    if (t === undefined) return UNSIGNED;
    const now = nowSeconds();
    const check = verifyRequest(msg, t, this.options.keys ?? new Map(), nodeHmac, now);
    if (!check.ok) {
      this.stats.tsigFailed++;
      summary.note('xfr_tsig_failed', source, TSIG_ERROR_NAMES[check.error.tsigError]!);
      return { kind: 'error', response: tsigErrorResponse(msg, questionEnd, check.error) };
    }
    const key = check.value.key;
    const signer = new TsigSigner(key, nodeHmac, now, t.mac, { fudge: t.fudge });
    return { kind: 'ok', signer, key: key.name, keyKey: t.keyKey };
  }

  /** The messages of a transfer's answer, each leaving room for its TSIG (RFC 8945 section 5.3.1). */
  private pump(p: { cursor: RecordCursor }, r: TransferRequest, size: number) {
    const { msg, question: q, auth } = r;
    return messagePump(p.cursor, {
      id: (msg[0]! << 8) | msg[1]!,
      queryFlags: (msg[2]! << 8) | msg[3]!,
      question: msg.subarray(12, q.questionEnd),
      maxSize: size - (auth.signer ? TsigSigner.room(auth.signer.key) : 0),
    });
  }

  /** The `xfr_out` line of a transfer sent (the per-zone transfers-out counts are read from it). */
  private logSent(
    facts: ReturnType<typeof factsOf>,
    key: string | undefined,
    fields: { readonly messages: number; readonly ms?: number; readonly transport?: 'udp' },
  ): void {
    this.log.info('xfr_out', { ...facts, ...fields, ...(key !== undefined ? { key } : {}) });
  }

  /** What a transfer query gets: a cursor over its records, or undefined (let the engine refuse). */
  private plan(
    engine: Engine,
    msg: Uint8Array,
    q: TransferQuestion,
    source: string,
    summary: LogSummary,
    keyKey: string | undefined,
  ): { zone: Zone; cursor: RecordCursor; kind: string } | undefined {
    const found = this.zoneFor(engine, q.key);
    const zone = found && this.allowed(source, found.origin, keyKey) ? found : undefined;
    if (zone === undefined) {
      this.stats.refused++;
      const why = found === undefined ? 'not served' : keyKey === undefined ? 'ACL' : 'ACL or key';
      summary.note('xfr_refused', source, `${q.qtype === TYPE_AXFR ? 'AXFR' : 'IXFR'} (${why})`);
      return undefined;
    }
    if (q.qtype === TYPE_AXFR) {
      this.stats.axfr++;
      return { zone, cursor: axfrCursor(zone), kind: 'AXFR' };
    }
    const serial = ixfrQuerySerial(msg, q.questionEnd);
    // RFC 1995 section 3: an IXFR without the client's SOA cannot be incremental: send it all.
    let p: IxfrPlan =
      serial === undefined ? { kind: 'full' } : planIxfr(this.history(zone.origin), serial, zone);
    let kind: string = p.kind;
    if (p.kind === 'incremental' && serial !== undefined) {
      const diffs = this.toSend(zone.origin, serial >>> 0, p.diffs);
      if (diffs !== p.diffs) kind = 'condensed';
      p = { kind: 'incremental', diffs };
    }
    this.stats.ixfr++;
    if (p.kind === 'current') this.stats.ixfrCurrent++;
    if (p.kind === 'full') this.stats.ixfrFull++;
    return { zone, cursor: ixfrCursor(p, zone), kind: `IXFR:${kind}` };
  }

  /** A transfer query over TCP, TSIG verified: its stream, or undefined for the engine to refuse. */
  transferTcp(r: TransferRequest, engine: Engine, summary: LogSummary): TransferStream | undefined {
    const { msg, question: q, auth, source } = r;
    if (this.stats.active >= this.options.maxConcurrent) {
      this.stats.busy++;
      summary.note('xfr_refused', source, 'maxConcurrent');
      return undefined;
    }
    const p = this.plan(engine, msg, q, source, summary, auth.keyKey);
    if (p === undefined) return undefined;
    const signer = auth.signer;
    const raw = this.pump(p, r, this.options.messageSize ?? 65535);
    this.stats.active++;
    const started = performance.now();
    const facts = factsOf(p, source);
    return {
      next: () => {
        const m = raw();
        return m === undefined || signer === undefined ? m : signer.sign(m);
      },
      end: (messages, error) => {
        this.stats.active--;
        if (error !== undefined) {
          this.log.warn('xfr_out_failed', { ...facts, error: error.message });
          return;
        }
        this.logSent(facts, auth.key, { messages, ms: Math.round(performance.now() - started) });
      },
    };
  }

  /**
   * IXFR over UDP (RFC 1995 section 2): the answer if it fits in `limit`, else
   * the current SOA alone; undefined (the engine answers) for AXFR or a refusal.
   */
  answerUdp(
    r: TransferRequest,
    engine: Engine,
    summary: LogSummary,
    limit: number,
  ): Buffer | undefined {
    const { msg, question: q, auth, source } = r;
    if (q.qtype !== TYPE_IXFR) return undefined;
    const p = this.plan(engine, msg, q, source, summary, auth.keyKey);
    if (p === undefined) return undefined;
    const sign = (m: Uint8Array) => Buffer.from(auth.signer ? auth.signer.sign(m) : m);
    const pump = this.pump(p, r, limit);
    const first = pump();
    if (first !== undefined && pump() === undefined) {
      this.logSent(factsOf(p, source), auth.key, { transport: 'udp', messages: 1 });
      return sign(first);
    }
    return sign(this.pump({ cursor: ixfrCursor({ kind: 'current' }, p.zone) }, r, limit)()!);
  }
}

/** What every line about a transfer out names: the zone, the kind of transfer and the peer. */
function factsOf(p: { readonly zone: Zone; readonly kind: string }, peer: string) {
  return { zone: p.zone.origin, kind: p.kind, peer };
}
