/**
 * The query pipeline, the one front door of the authoritative server: a
 * listener hands it a message and its transport facts and gets an `Outcome`
 * (bytes to send, a transfer to stream, nothing). In one order on every
 * transport:
 * 1. parse once; a response or a message shorter than a header is dropped;
 * 2. verify the request's TSIG before anything else (RFC 8945 section 5.2);
 *    a failure is answered at once (NOTAUTH with the TSIG error, or FORMERR);
 * 3. NOTIFY for a secondary zone goes to the secondary service with the
 *    signing key's name (RFC 1996 section 3.10);
 * 4. AXFR and IXFR from allowed peers go to the transfer service, the rest
 *    to the engine (REFUSED);
 * 5. the engine answers, with what RRL and logging need as a value (`Answer`);
 * 6. RRL (UDP): send, slip or drop;
 * 7. the answer to a signed request is signed (RFC 8945 section 5.3).
 */
import {
  newParsedQuery,
  OPCODE_QUERY,
  parseQuery,
  PARSE_DROP,
  PARSE_OK,
  type ParsedQuery,
} from '../dns/core/wire/query.ts';
import { dohFreshness } from '../dns/core/wire/doh.ts';
import type { DohHttpCode } from '../dns/core/wire/codes.ts';
import { CLASS_IN, TYPE_AXFR, TYPE_IXFR } from '../dns/core/rr/types.ts';
import { RCODE_FORMERR } from './core/answer.ts';
import {
  TRANSPORT_DOH,
  TRANSPORT_TCP,
  TRANSPORT_UDP,
  type Engine,
  type Transport,
} from './engine.ts';
import type { LogSummary } from './log-summary.ts';
import { RRL_SEND, RRL_SLIP, slipResponse, type ResponseFacts, type Rrl } from './rrl.ts';
import type { TsigSigner } from '../xfr/core/tsig.ts';
import {
  UNSIGNED,
  type RequestAuthOk,
  type TransferQuestion,
  type Transfers,
  type TransferStream,
} from '../xfr/out.ts';

export { TRANSPORT_DOH, TRANSPORT_TCP, TRANSPORT_UDP, type Transport };

/** NOTIFY for secondary zones, TSIG verified (`key`: the signer's name): the unsigned answer, or undefined. */
export type NotifyHook = (
  msg: Uint8Array,
  source: string,
  key: string | undefined,
) => Uint8Array | undefined;

export interface PipelineOptions {
  /** The engine that answers queries (one per answering thread). */
  readonly engine: () => Engine;
  /** Per-packet events, summarised (FORMERR sent, RRL, failures). */
  readonly summary: LogSummary;
  /** Response-rate limiting (UDP), when on. */
  readonly rrl?: Rrl | undefined;
  /** TSIG keys and zone transfers out (AXFR, IXFR); without it, TSIG is not checked. */
  readonly transfers?: Transfers | undefined;
  /** NOTIFY in for secondary zones (UDP and TCP). */
  readonly notify?: NotifyHook | undefined;
}

/** What to do with one message. */
export type Outcome =
  | { readonly kind: 'answer'; readonly bytes: Buffer }
  | { readonly kind: 'notify'; readonly bytes: Buffer }
  | { readonly kind: 'transfer'; readonly transfer: TransferStream }
  | {
      readonly kind: 'drop';
      /** `not-a-query`: a response or shorter than a header; `failed`: answering it failed; `limited`: RRL. */
      readonly why: 'not-a-query' | 'failed' | 'limited';
    };

/** What the pipeline counted since the start (`/metrics`, `ctl stats`). */
export interface PipelineCounters {
  /** Answers sent truncated (TC=1) because they did not fit (not RRL's slips, which it counts). */
  truncated: number;
}

const NOT_A_QUERY: Outcome = { kind: 'drop', why: 'not-a-query' };
const FAILED: Outcome = { kind: 'drop', why: 'failed' };
const LIMITED: Outcome = { kind: 'drop', why: 'limited' };
const TRANSPORT_NAMES = ['udp', 'tcp', 'doh'] as const;
const OPCODE_NOTIFY = 4;
/** IXFR over UDP: one datagram of at most this size, else the current SOA (RFC 1995 section 2). */
const IXFR_UDP_LIMIT = 512;

/** What RRL is told about a response made outside the engine. */
interface Made extends ResponseFacts {
  readonly bytes: Buffer;
  readonly questionEnd: number;
  readonly tc: boolean;
}

/** The octets as a Buffer, without a copy. */
function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

/** The question name's lookup key (wire octets, ASCII lowercased). */
function questionKey(msg: Uint8Array, end: number): string {
  let key = '';
  for (let i = 12; i < end; i++) {
    const c = msg[i]!;
    key += String.fromCharCode(c >= 0x41 && c <= 0x5a ? c | 0x20 : c);
  }
  return key;
}

export class QueryPipeline {
  private readonly engine: () => Engine;
  private readonly summary: LogSummary;
  private readonly rrl: Rrl | undefined;
  private readonly transfers: Transfers | undefined;
  private readonly notify: NotifyHook | undefined;
  /** Reused for every message: the pipeline handles one at a time (one per thread). */
  private readonly q: ParsedQuery = newParsedQuery();
  private readonly tally: PipelineCounters = { truncated: 0 };

  constructor(options: PipelineOptions) {
    this.engine = options.engine;
    this.summary = options.summary;
    this.rrl = options.rrl;
    this.transfers = options.transfers;
    this.notify = options.notify;
  }

  get counters(): Readonly<PipelineCounters> {
    return this.tally;
  }

  /** Handle one whole message from `source` over `transport`. Never throws. */
  handle(msg: Buffer, transport: Transport, source: string): Outcome {
    try {
      return this.process(msg, transport, source);
    } catch (e) {
      // Nothing a client sends may crash the server: count (one summary line per interval) and drop.
      const error = e instanceof Error ? e.message : String(e);
      this.summary.note('query_failed', source, TRANSPORT_NAMES[transport], 'error', error);
      return FAILED;
    }
  }

  private process(msg: Buffer, transport: Transport, source: string): Outcome {
    const q = this.q;
    const status = parseQuery(msg, msg.length, q);
    const engine = this.engine();
    if (status === PARSE_DROP) {
      engine.answer(msg, q, status, transport, source); // counted as dropped
      return NOT_A_QUERY;
    }
    let auth: RequestAuthOk = UNSIGNED;
    if (q.tsigAt >= 0 && this.transfers !== undefined) {
      const questionEnd = q.hasQuestion ? q.questionEnd : 12;
      const v = this.transfers.verify(msg, questionEnd, source, this.summary);
      if (v.kind === 'error') {
        const bytes = asBuffer(v.response);
        return this.deliver(tsigFailure(q, bytes, questionEnd), transport, source, undefined);
      }
      auth = v;
    }
    if (q.opcode === OPCODE_NOTIFY && this.notify !== undefined && transport !== TRANSPORT_DOH) {
      const out = this.notify(msg, source, auth.key);
      if (out !== undefined) {
        return { kind: 'notify', bytes: asBuffer(auth.signer ? auth.signer.sign(out) : out) };
      }
    }
    if (status === PARSE_OK && q.opcode === OPCODE_QUERY && q.qclass === CLASS_IN) {
      if (q.qtype === TYPE_AXFR || q.qtype === TYPE_IXFR) {
        const out = this.transfer(msg, q, auth, engine, transport, source);
        if (out !== undefined) return out;
      }
    }
    const a = engine.answer(msg, q, status, transport, source)!;
    if (a.body.rcode === RCODE_FORMERR)
      this.summary.note('formerr_sent', source, TRANSPORT_NAMES[transport]);
    return this.deliver(a, transport, source, auth.signer);
  }

  /** AXFR or IXFR for the transfer service; undefined when it refuses (the engine answers REFUSED). */
  private transfer(
    msg: Buffer,
    q: ParsedQuery,
    auth: RequestAuthOk,
    engine: Engine,
    transport: Transport,
    source: string,
  ): Outcome | undefined {
    const transfers = this.transfers;
    if (transfers === undefined || transport === TRANSPORT_DOH) return undefined;
    const tq: TransferQuestion = {
      key: questionKey(msg, q.qnameEnd),
      qtype: q.qtype,
      questionEnd: q.questionEnd,
    };
    const request = { msg, question: tq, auth, source };
    if (transport === TRANSPORT_TCP) {
      const t = transfers.transferTcp(request, engine, this.summary);
      return t === undefined ? undefined : { kind: 'transfer', transfer: t };
    }
    const out = transfers.answerUdp(request, engine, this.summary, IXFR_UDP_LIMIT);
    if (out === undefined) return undefined;
    const made: Made = {
      bytes: out,
      body: TRANSFER_BODY,
      key: tq.key,
      qtype: q.qtype,
      zone: undefined,
      wildcard: false,
      questionEnd: q.questionEnd,
      tc: false,
    };
    return this.deliver(made, transport, source, undefined);
  }

  /** The last stages: response-rate limiting (UDP), then the TSIG signature of a signed request's answer. */
  private deliver(
    a: Made,
    transport: Transport,
    source: string,
    signer: TsigSigner | undefined,
  ): Outcome {
    const rrl = this.rrl;
    if (rrl !== undefined && transport === TRANSPORT_UDP) {
      const would = rrl.counters.wouldLimit;
      const action = rrl.check(source, a, rrl.nowSecond());
      if (rrl.counters.wouldLimit !== would) {
        this.summary.note('rrl_would_limit', rrl.prefix(source), undefined, 'info');
      } else if (action !== RRL_SEND) {
        const slip = action === RRL_SLIP;
        this.summary.note('rrl_limited', rrl.prefix(source), slip ? 'slip' : 'drop');
        if (!slip) return LIMITED;
        return { kind: 'answer', bytes: slipResponse(a.bytes, a.questionEnd) };
      }
    }
    if (a.tc) this.tally.truncated++;
    const bytes = signer === undefined ? a.bytes : asBuffer(signer.sign(a.bytes));
    return { kind: 'answer', bytes };
  }
}

/** What RRL is told of an IXFR answered over UDP: an answer, identified by the zone's name and type. */
const TRANSFER_BODY = { rcode: 0, aa: true, ancount: 1 };

/** The answer to a request whose TSIG failed, as RRL sees it: an error. */
function tsigFailure(q: ParsedQuery, bytes: Buffer, questionEnd: number): Made {
  return {
    bytes,
    body: { rcode: bytes[3]! & 0x0f, aa: false, ancount: 0 },
    key: '',
    qtype: q.qtype,
    zone: undefined,
    wildcard: false,
    questionEnd,
    tc: false,
  };
}

/** What DoH makes of a decoded query: the answer with its Cache-Control, or a 400 problem. */
export type DohAnswer =
  | { readonly ok: true; readonly out: Buffer; readonly cacheControl: string }
  | {
      readonly ok: false;
      readonly code: Extract<DohHttpCode, 'DOH_BAD_MESSAGE' | 'DOH_NOT_A_QUERY'>;
      readonly detail: string;
    };

/** DoH's one entry into the pipeline: the answer to a decoded query, or why there is none. Never throws. */
export function answerQuery(pipeline: QueryPipeline, query: Buffer, source: string): DohAnswer {
  const o = pipeline.handle(query, TRANSPORT_DOH, source);
  if (o.kind === 'answer' || o.kind === 'notify') {
    const ttl = dohFreshness(o.bytes);
    return {
      ok: true,
      out: o.bytes,
      cacheControl: ttl === undefined ? 'no-store' : `max-age=${ttl}`,
    };
  }
  if (o.kind === 'drop' && o.why === 'failed')
    return { ok: false, code: 'DOH_BAD_MESSAGE', detail: 'the DNS message could not be answered' };
  return {
    ok: false,
    code: 'DOH_NOT_A_QUERY',
    detail: 'the body is not a DNS query (shorter than a header, or a response)',
  };
}
