/**
 * DNS over HTTPS transport (RFC 8484) for the stub resolver, GET `?dns=` or
 * POST through a `fetch`. The same checks as over UDP/TCP (timeout, tries,
 * ID, QR, opcode, question, strict decoding, size cap); an RCODE error moves
 * on to the next URL. DNS ID 0 (RFC 8484 section 4.1). No Node built-ins.
 */
// The `buffer` package in a browser build (what dns-packet itself imports); Node's own in Node.
import { Buffer } from 'buffer';
import type { QueryType } from '../dns/core/rr/types.ts';
import { BoundedMemo } from '../kit/core/memo.ts';
import { base64UrlEncode } from '../dns/core/wire/doh.ts';
import {
  abortError,
  encodeQuery,
  pickWorse,
  questionMismatch,
  rcodeError,
  severity,
} from './checks.ts';
import { DnsError } from './errors.ts';
import type {
  DnsTransportLike,
  Exchange,
  QueryOptions,
  TransportOptions,
  TryNote,
} from './transport.ts';
import type { WireError } from './wire.ts';
import { decodeResponse, knownQuestion, type KnownQuestion, type Message } from './wire.ts';

const DNS_MESSAGE = 'application/dns-message';

/** What the transport needs of an HTTP response (a WHATWG `Response` has it). */
export interface DohResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { cancel(): Promise<void> } | null;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** What the transport needs of `fetch` (the global `fetch` is one; `doh-undici.ts`'s `undiciDohFetch` another). */
export type DohFetch = (
  url: string,
  init: {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    signal: AbortSignal;
    body?: Uint8Array<ArrayBuffer>;
  },
) => Promise<DohResponse>;

/** Timeout, tries (per URL), size and record caps as for the UDP/TCP transport. */
export interface DohTransportOptions extends Pick<
  TransportOptions,
  'timeoutMs' | 'tries' | 'maxMessageBytes' | 'maxRecords'
> {
  /** DoH endpoint URLs (`https://host/dns-query`), tried in turn. */
  readonly urls: readonly string[];
  /** GET (default: cacheable by HTTP caches) or POST. */
  readonly method?: 'GET' | 'POST';
  /** The fetch to use (default: the global one). */
  readonly fetch?: DohFetch;
  /** DO and CD on every query (RFC 4035 section 3.2): signatures for a validating client. */
  readonly dnssecOk?: boolean;
}

/** The DoH URLs as given: absolute http(s) URLs, or a ClientError-style DnsError. */
export function parseDohUrls(urls: readonly string[]): string[] {
  return urls.map((u) => {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      throw new DnsError('DNS_BAD_DOH_URL', `DoH URL ${JSON.stringify(u)} is not an absolute URL`);
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
      throw new DnsError('DNS_BAD_DOH_URL', `DoH URL ${JSON.stringify(u)} is not http(s)`);
    }
    // A fragment is not sent in a request.
    parsed.hash = '';
    return parsed.href;
  });
}

/** A query as sent (ID 0, so the same bytes every time): its wire form, base64url and question. */
interface QueryTemplate {
  readonly wire: Buffer;
  readonly base64url: string;
  readonly known: KnownQuestion;
}

/** Encoded queries kept per question (as the UDP transport keeps its templates); bounded. */
const TEMPLATE_MAX = 1024;

export class DohTransport implements DnsTransportLike {
  readonly urls: readonly string[];
  private readonly method: 'GET' | 'POST';
  private readonly timeoutMs: number;
  private readonly tries: number;
  private readonly maxBytes: number;
  private readonly maxRecords: number;
  private readonly fetchFn: DohFetch;
  private readonly dnssecOk: boolean;
  private readonly templates = new BoundedMemo<string, QueryTemplate>(TEMPLATE_MAX);
  /** The URL-derived strings of each endpoint, made once. */
  private readonly endpoints = new Map<
    string,
    { readonly getPrefix: string; readonly server: { host: string; port: number } }
  >();

  constructor(options: DohTransportOptions) {
    if (options.urls.length === 0) throw new DnsError('DNS_NO_SERVERS', 'no DoH URL given');
    this.urls = parseDohUrls(options.urls);
    this.method = options.method ?? 'GET';
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.tries = options.tries ?? 2;
    this.maxBytes = options.maxMessageBytes ?? 65535;
    this.maxRecords = options.maxRecords ?? 1000;
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.dnssecOk = options.dnssecOk === true;
    for (const url of this.urls) {
      this.endpoints.set(url, {
        getPrefix: `${url}${url.includes('?') ? '&' : '?'}dns=`,
        server: serverOf(url),
      });
    }
  }

  /** The query for (qname, qtype, rd), encoded once. */
  private template(qname: string, qtype: QueryType, rd: boolean): QueryTemplate {
    const key = `${qtype} ${rd ? 1 : 0} ${qname}`;
    let t = this.templates.get(key);
    if (t === undefined) {
      // With DNSSEC records asked for (a validating client), CD as well (RFC 4035 section 3.2.2).
      const flags = (rd ? 0x0100 : 0) | (this.dnssecOk ? 0x0010 : 0);
      const wire = encodeQuery(qname, qtype, flags, 1232, this.dnssecOk);
      t = this.templates.set(key, {
        wire,
        base64url: base64UrlEncode(wire),
        known: knownQuestion(wire),
      });
    }
    return t;
  }

  async query(qname: string, qtype: QueryType, options: QueryOptions): Promise<Exchange> {
    const query = this.template(qname, qtype, options.recursionDesired ?? true);
    const failures: TryNote[] = [];
    let worst: DnsError | undefined;
    for (const url of this.urls) {
      for (let t = 0; t < this.tries; t++) {
        if (options.signal?.aborted) throw abortError(qname, qtype);
        const started = performance.now();
        try {
          const { message, wire } = await this.exchange(url, query, qname, qtype, options.signal);
          return {
            message,
            wire,
            server: (this.endpoints.get(url) as { server: { host: string; port: number } }).server,
            via: url,
            protocol: 'doh',
            bytes: wire.length,
            rttMs: performance.now() - started,
            ignored: 0,
            failures,
          };
        } catch (e) {
          const err =
            e instanceof DnsError
              ? e
              : new DnsError('DNS_NETWORK', String(e), { qname, qtype, server: url });
          if (err.code === 'DNS_ABORTED') throw err;
          failures.push({ server: url, code: err.code, message: err.message });
          worst = pickWorse(worst, err);
          // An RCODE is the server's answer: asking the same URL again will not change it.
          if (severity(err) >= 4) break;
        }
      }
    }
    const base = worst as DnsError;
    throw new DnsError(
      base.code,
      failures.length > 1
        ? `${base.message} (tries: ${failures.map((f) => `${f.server} ${f.code}`).join(', ')})`
        : base.message,
      { qname, qtype, server: base.server ?? '' },
      base,
    );
  }

  /** One HTTP exchange: the checked DNS response, or a DnsError. */
  private async exchange(
    url: string,
    query: QueryTemplate,
    qname: string,
    qtype: QueryType,
    signal: AbortSignal | undefined,
  ): Promise<{ message: Message; wire: Uint8Array }> {
    const ctx = { qname, qtype, server: url };
    // One controller and one timer per try (cheaper than AbortSignal.timeout and .any).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const post = this.method === 'POST';
    const init: Parameters<DohFetch>[1] = {
      method: this.method,
      headers: post
        ? { accept: DNS_MESSAGE, 'content-type': DNS_MESSAGE }
        : { accept: DNS_MESSAGE },
      signal: controller.signal,
      ...(post ? { body: query.wire as Uint8Array<ArrayBuffer> } : {}),
    };
    const target = post
      ? url
      : `${(this.endpoints.get(url) as { getPrefix: string }).getPrefix}${query.base64url}`;
    let body: ArrayBuffer;
    try {
      body = await this.readBody(await this.fetchFn(target, init), ctx);
    } catch (e) {
      if (e instanceof DnsError) throw e;
      if (signal?.aborted) throw abortError(qname, qtype, url);
      if (timedOut) {
        throw new DnsError(
          'DNS_TIMEOUT',
          `no answer from ${url} for ${qname} ${qtype} within ${this.timeoutMs} ms`,
          ctx,
        );
      }
      throw new DnsError('DNS_NETWORK', `${url}: ${(e as Error).message}`, ctx, e);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    const wire = new Uint8Array(body);
    return { message: this.check(wire, query.known, ctx), wire };
  }

  private async readBody(
    response: DohResponse,
    ctx: { qname: string; qtype: string; server: string },
  ): Promise<ArrayBuffer> {
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new DnsError(
        'DNS_DOH_STATUS',
        `${ctx.server} answered HTTP ${response.status} for ${ctx.qname} ${ctx.qtype}`,
        ctx,
      );
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== DNS_MESSAGE) {
      await response.body?.cancel();
      throw new DnsError(
        'DNS_BAD_RESPONSE',
        `${ctx.server} answered ${JSON.stringify(type)}, not ${DNS_MESSAGE}`,
        ctx,
      );
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > this.maxBytes) {
      await response.body?.cancel();
      throw new DnsError(
        'DNS_MESSAGE_TOO_LARGE',
        `${ctx.server}: a ${declared}-byte answer is over ${this.maxBytes}`,
        ctx,
      );
    }
    const body = await response.arrayBuffer();
    if (body.byteLength > this.maxBytes) {
      throw new DnsError(
        'DNS_MESSAGE_TOO_LARGE',
        `${ctx.server}: a ${body.byteLength}-byte answer is over ${this.maxBytes}`,
        ctx,
      );
    }
    return body;
  }

  /** The response decoded and matched to our question (ID 0, QR, QUERY), or a DnsError. */
  private check(
    bytes: Uint8Array,
    known: KnownQuestion,
    ctx: { qname: string; qtype: string; server: string },
  ): Message {
    let message: Message;
    try {
      message = decodeResponse(
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length),
        this.maxRecords,
        known,
      );
    } catch (e) {
      const w = e as WireError;
      throw new DnsError(w.code ?? 'DNS_BAD_RESPONSE', `${ctx.server}: ${w.message}`, ctx, e);
    }
    if (message.id !== 0 || !message.qr || message.opcode !== 'QUERY') {
      throw new DnsError(
        'DNS_BAD_RESPONSE',
        `${ctx.server} answered with ID ${message.id} (expected 0) or a non-response`,
        ctx,
      );
    }
    if (message.tc) {
      throw new DnsError(
        'DNS_BAD_RESPONSE',
        `${ctx.server} sent a truncated (TC=1) answer over DoH`,
        ctx,
      );
    }
    const mismatch = questionMismatch(message, ctx.qname, ctx.qtype);
    if (mismatch) throw new DnsError('DNS_BAD_RESPONSE', `${ctx.server}: ${mismatch}`, ctx);
    if (message.rcode !== 'NOERROR' && message.rcode !== 'NXDOMAIN') {
      throw rcodeError(message.rcode, ctx.qname, ctx.qtype, ctx.server);
    }
    return message;
  }
}

/** A ServerAddress-shaped name for the URL (the trace prints `via`, the URL itself). */
function serverOf(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) };
}
