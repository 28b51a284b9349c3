/**
 * Zone transfers out (AXFR, RFC 5936; IXFR, RFC 1995) and the history of
 * differences IXFR answers from. The transfer ACL (address prefixes) and a
 * bound on concurrent transfers decide who gets a zone; everyone else gets
 * REFUSED from the engine, as before ("Default: no transfers").
 *
 * A transfer streams the zone snapshot that was served when it began (a
 * reload during the transfer does not change what it sends), message by
 * message, waiting for the socket to drain: a slow secondary holds one
 * connection, not the server's memory.
 *
 * @see RFC 5936 section 2.2.1: "The Question section of the initial AXFR
 * response message [...] MUST be a copy of the query"; section 4.2: "servers
 * [...] SHOULD limit the number of concurrent zone transfers".
 * @see RFC 5936 section 5: "An AXFR server [...] MUST be able to restrict
 * access to zone transfers".
 */
import type net from 'node:net';
import { inCidr, type Cidr } from '../config/cidr.ts';
import { addressOctets } from '../kit/core/ip.ts';
import type { Zone } from '../dns/core/zone/model.ts';
import { nameKey } from '../dns/core/wire/name.ts';
import { axfrCursor, type RecordCursor } from './core/records.ts';
import { messagePump } from './core/message.ts';
import { ixfrCursor, ixfrQuerySerial, planIxfr, type IxfrPlan } from './core/ixfr.ts';
import type { ZoneDiff } from './core/diff.ts';
import { condenseWhenSmaller } from './core/condense.ts';
import type { Engine } from '../authority/engine.ts';
import type { Logger } from '../authority/log.ts';
import type { LogSummary } from '../authority/log-summary.ts';
import {
  RCODE_NOTAUTH,
  readTsig,
  TSIG_ERROR_NAMES,
  TsigSigner,
  verifyRequest,
  type TsigKey,
} from './core/tsig.ts';
import { malformedTsigResponse, nodeHmac, nowSeconds, tsigErrorResponse } from './tsig.ts';

/** Packing time after which a transfer lets the event loop run (UDP and other TCP clients). */
const SLICE_MS = 2;

export const QTYPE_IXFR = 251;
export const QTYPE_AXFR = 252;

/** Who may transfer: a request must come from `allow` and, when `requireKeys` is not empty, be signed with one of them. */
export interface TransferAcl {
  /** Address prefixes; empty: nobody. */
  readonly allow: readonly Cidr[];
  /** Wire keys of TSIG key names; empty: no key needed. */
  readonly requireKeys: ReadonlySet<string>;
}

export interface TransferOptions {
  /** Address prefixes allowed to transfer every zone; empty: nobody. */
  readonly allow: readonly Cidr[];
  /** Transfers running at once; more get REFUSED. */
  readonly maxConcurrent: number;
  /** Most octets per transfer message. */
  readonly messageSize?: number;
  /** TSIG keys known, by the wire key of their name (RFC 8945). */
  readonly keys?: ReadonlyMap<string, TsigKey>;
  /** When not empty: a transfer must be signed with one of these keys (wire keys of names), besides coming from `allow`. */
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

/** What the TSIG of a transfer request decided. */
type Auth =
  | {
      readonly kind: 'ok';
      readonly signer: TsigSigner | undefined;
      readonly key: string | undefined;
      /** The wire key of the key's name (undefined: unsigned). */
      readonly keyKey: string | undefined;
    }
  | { readonly kind: 'error'; readonly response: Uint8Array };

/** The question of a transfer query: name key, type, and where the question ends; undefined for other messages. */
export function transferQuestion(
  msg: Uint8Array,
): { key: string; qtype: number; questionEnd: number } | undefined {
  if (msg.length < 17) return undefined;
  // A query (QR 0) with opcode QUERY and one question.
  if ((msg[2]! & 0xf8) !== 0 || msg[4] !== 0 || msg[5] !== 1) return undefined;
  let o = 12;
  let key = '';
  for (;;) {
    if (o >= msg.length) return undefined;
    const l = msg[o]!;
    if (l > 63) return undefined;
    if (o + 1 + l > msg.length) return undefined;
    for (let i = o; i <= o + l; i++) {
      const c = msg[i]!;
      key += String.fromCharCode(i > o && c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
    }
    o += 1 + l;
    if (l === 0) break;
  }
  if (o + 4 > msg.length) return undefined;
  const qtype = (msg[o]! << 8) | msg[o + 1]!;
  const qclass = (msg[o + 2]! << 8) | msg[o + 3]!;
  if ((qtype !== QTYPE_AXFR && qtype !== QTYPE_IXFR) || qclass !== 1) return undefined;
  return { key, qtype, questionEnd: o + 4 };
}

export interface TransferStats {
  axfr: number;
  ixfr: number;
  ixfrCurrent: number;
  ixfrFull: number;
  refused: number;
  busy: number;
  active: number;
  /** Requests whose TSIG failed (BADKEY, BADSIG, BADTIME). */
  tsigFailed: number;
}

/** A message with its two-octet TCP length prefix. */
function frame(m: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(m.length + 2);
  out.writeUInt16BE(m.length, 0);
  out.set(m, 2);
  return out;
}

export class Transfers {
  readonly options: TransferOptions;
  readonly stats: TransferStats = {
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

  /**
   * Told of every history change (`serve --workers`: the main thread keeps
   * the history and sends it to the other answering threads, which serve
   * transfers too).
   */
  onHistory: ((origin: string, diffs: readonly ZoneDiff[]) => Promise<void> | void) | undefined;

  /** Every zone's history, by origin. */
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

  /**
   * The TSIG of a transfer request (RFC 8945 section 5.2): none, valid (the
   * answer is signed with its key; whether the key admits the request is
   * the zone's ACL's to say), or failed (NOTAUTH with BADKEY, BADSIG or
   * BADTIME, answered at once; FORMERR when the TSIG record cannot be read).
   */
  private authenticate(
    msg: Uint8Array,
    questionEnd: number,
    source: string,
    summary: LogSummary,
  ): Auth {
    const t = readTsig(msg);
    if (t === 'FORMERR') {
      this.stats.tsigFailed++;
      summary.note('xfr_tsig_failed', source, 'TSIG_MALFORMED');
      return { kind: 'error', response: malformedTsigResponse(msg, questionEnd) };
    }
    if (t === undefined)
      return { kind: 'ok', signer: undefined, key: undefined, keyKey: undefined };
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

  /** What a transfer query gets: a cursor over its records, or undefined (let the engine refuse). */
  private plan(
    engine: Engine,
    msg: Uint8Array,
    q: { key: string; qtype: number; questionEnd: number },
    source: string,
    summary: LogSummary,
    keyKey: string | undefined,
  ): { zone: Zone; cursor: RecordCursor; kind: string } | undefined {
    const found = this.zoneFor(engine, q.key);
    const zone = found && this.allowed(source, found.origin, keyKey) ? found : undefined;
    if (zone === undefined) {
      this.stats.refused++;
      const why = found === undefined ? 'not served' : keyKey === undefined ? 'ACL' : 'ACL or key';
      summary.note('xfr_refused', source, `${q.qtype === QTYPE_AXFR ? 'AXFR' : 'IXFR'} (${why})`);
      return undefined;
    }
    if (q.qtype === QTYPE_AXFR) {
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

  /**
   * Serve a transfer query on a TCP connection. Returns undefined when the
   * engine should answer instead (refused), else a promise that settles when
   * the last message is written (or the connection is gone).
   */
  serveTcp(
    socket: net.Socket,
    msg: Buffer,
    engine: Engine,
    source: string,
    summary: LogSummary,
    progress: () => void = () => undefined,
  ): Promise<void> | undefined {
    const q = transferQuestion(msg);
    if (q === undefined) return undefined;
    if (this.stats.active >= this.options.maxConcurrent) {
      this.stats.busy++;
      summary.note('xfr_refused', source, 'maxConcurrent');
      return undefined;
    }
    const auth = this.authenticate(msg, q.questionEnd, source, summary);
    if (auth.kind === 'error') {
      socket.write(frame(auth.response));
      return Promise.resolve();
    }
    const p = this.plan(engine, msg, q, source, summary, auth.keyKey);
    if (p === undefined) return undefined;
    const signer = auth.signer;
    const raw = messagePump(p.cursor, {
      id: (msg[0]! << 8) | msg[1]!,
      queryFlags: (msg[2]! << 8) | msg[3]!,
      question: msg.subarray(12, q.questionEnd),
      // Room for the TSIG record every message carries (RFC 8945 section 5.3.1).
      maxSize: (this.options.messageSize ?? 65535) - (signer ? TsigSigner.room(signer.key) : 0),
    });
    const pump = () => {
      const m = raw();
      return m === undefined ? undefined : frame(signer ? signer.sign(m) : m);
    };
    this.stats.active++;
    const started = performance.now();
    return this.stream(socket, pump, progress).then(
      (messages) => {
        this.stats.active--;
        this.log.info('xfr_out', {
          zone: p.zone.origin,
          kind: p.kind,
          peer: source,
          messages,
          ms: Math.round(performance.now() - started),
          ...(auth.key !== undefined ? { key: auth.key } : {}),
        });
      },
      (e: unknown) => {
        this.stats.active--;
        this.log.warn('xfr_out_failed', {
          zone: p.zone.origin,
          kind: p.kind,
          peer: source,
          error: (e as Error).message,
        });
      },
    );
  }

  /** Write every message, waiting for the socket to drain between batches. */
  private async stream(
    socket: net.Socket,
    pump: () => Uint8Array | undefined,
    progress: () => void,
  ): Promise<number> {
    let n = 0;
    let slice = performance.now();
    for (let m = pump(); m !== undefined; m = pump()) {
      if (socket.destroyed) throw new Error('connection closed by the peer');
      n++;
      progress();
      const wrote = socket.write(m);
      // The kernel may take a whole zone at once: yield every few ms so queries keep being answered.
      if (wrote && performance.now() - slice > SLICE_MS) {
        await new Promise<void>((r) => setImmediate(r));
        slice = performance.now();
      }
      if (!wrote) {
        await new Promise<void>((resolve, reject) => {
          const done = () => {
            socket.off('drain', done);
            socket.off('close', closed);
            resolve();
          };
          const closed = () => {
            socket.off('drain', done);
            reject(new Error('connection closed by the peer'));
          };
          socket.once('drain', done);
          socket.once('close', closed);
        });
        slice = performance.now();
      }
    }
    return n;
  }

  /**
   * The answer to a TSIG-signed query of any kind (a secondary's SOA check,
   * RFC 8945 section 5.3): signed with the query's key, or the TSIG error
   * answer when the signature fails; `out` as it is for unsigned queries or
   * when no key is configured.
   */
  signAnswer(msg: Buffer, out: Buffer, questionEnd: number): Buffer {
    const keys = this.options.keys;
    if (keys === undefined || keys.size === 0 || msg.length < 12) return out;
    if (msg[10] === 0 && msg[11] === 0) return out;
    if ((out[3]! & 0x0f) === RCODE_NOTAUTH) return out;
    const t = readTsig(msg);
    if (t === undefined) return out;
    if (t === 'FORMERR') {
      this.stats.tsigFailed++;
      return Buffer.from(malformedTsigResponse(msg, questionEnd));
    }
    const now = nowSeconds();
    const check = verifyRequest(msg, t, keys, nodeHmac, now);
    if (!check.ok) {
      this.stats.tsigFailed++;
      return Buffer.from(tsigErrorResponse(msg, questionEnd, check.error));
    }
    const signer = new TsigSigner(check.value.key, nodeHmac, now, t.mac, { fudge: t.fudge });
    return Buffer.from(signer.sign(out));
  }

  /**
   * IXFR over UDP (RFC 1995 section 2): the answer when it fits in one
   * datagram of `limit` octets, else the single current SOA (the client then
   * asks over TCP). AXFR is TCP only: undefined, the engine refuses.
   */
  answerUdp(msg: Buffer, engine: Engine, source: string, summary: LogSummary, limit: number) {
    const q = transferQuestion(msg);
    if (q === undefined || q.qtype !== QTYPE_IXFR) return undefined;
    const auth = this.authenticate(msg, q.questionEnd, source, summary);
    if (auth.kind === 'error') return Buffer.from(auth.response);
    const p = this.plan(engine, msg, q, source, summary, auth.keyKey);
    if (p === undefined) return undefined;
    const signer = auth.signer;
    const base = {
      id: (msg[0]! << 8) | msg[1]!,
      queryFlags: (msg[2]! << 8) | msg[3]!,
      question: msg.subarray(12, q.questionEnd),
      maxSize: limit - (signer ? TsigSigner.room(signer.key) : 0),
    };
    const sign = (m: Uint8Array) => Buffer.from(signer ? signer.sign(m) : m);
    const pump = messagePump(p.cursor, base);
    const first = pump();
    if (first !== undefined && pump() === undefined) return sign(first);
    const soaOnly = messagePump(ixfrCursor({ kind: 'current' }, p.zone), base)();
    return sign(soaOnly!);
  }
}
