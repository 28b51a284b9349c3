/**
 * The DoH transport's requests in Node, on undici: `https://` by ALPN
 * (HTTP/2 or 1.1); `http://` HTTP/1.1 first, then h2c with prior knowledge
 * (RFC 9113 section 3.3: BIND's and Unbound's plain DoH listeners speak
 * HTTP/2 only), remembering what each origin spoke last. Each exchange is one
 * `dispatch` with a small body-gathering handler (not `undici.request`).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Agent, Dispatcher } from 'undici';
import { undici } from './undici-lazy.ts';
import type { DohFetch, DohResponse } from './doh.ts';

type Mode = 'h1' | 'h2c';
type Init = Parameters<DohFetch>[1];
type Settle<T> = { resolve: (value: T) => void; reject: (e: Error) => void };

/** A body past this is cut off with an error (a DNS message is at most 65,535 bytes). */
const MAX_BODY = 1024 * 1024;

/** One exchange: undici's handler, and the response once its head has come. */
class Exchange implements Dispatcher.DispatchHandler, DohResponse {
  status = 0;
  #fields: IncomingHttpHeaders = {};
  #controller: Dispatcher.DispatchController | undefined;
  readonly #signal: AbortSignal;
  readonly #head: Settle<DohResponse>;
  #headDone = false;
  readonly #chunks: Buffer[] = [];
  #size = 0;
  /** The body once ended, or why it will not come. */
  #end: { body: ArrayBuffer } | { error: Error } | undefined;
  #waiting: Settle<ArrayBuffer> | undefined;

  constructor(signal: AbortSignal, head: Settle<DohResponse>) {
    this.#signal = signal;
    this.#head = head;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  readonly headers = {
    get: (name: string): string | null => {
      const v = this.#fields[name];
      return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
    },
  };

  readonly body = {
    cancel: (): Promise<void> => {
      if (this.#end === undefined) this.#controller?.abort(new Error('response body not read'));
      return Promise.resolve();
    },
  };

  arrayBuffer(): Promise<ArrayBuffer> {
    const end = this.#end;
    if (end !== undefined)
      return 'body' in end ? Promise.resolve(end.body) : Promise.reject(end.error);
    return new Promise((resolve, reject) => (this.#waiting = { resolve, reject }));
  }

  readonly #onAbort = (): void => {
    this.#controller?.abort(this.#signal.reason as Error);
  };

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#signal.aborted) controller.abort(this.#signal.reason as Error);
  }

  onResponseStart(
    _c: Dispatcher.DispatchController,
    status: number,
    headers: IncomingHttpHeaders,
  ): void {
    // 1xx answers (103 Early Hints, ...) come before the real one.
    if (status < 200) return;
    this.status = status;
    this.#fields = headers;
    this.#headDone = true;
    this.#head.resolve(this);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > MAX_BODY) controller.abort(new Error('a response body over 1 MiB'));
    else this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    // The body in an ArrayBuffer of its own (the socket's buffers are shared slabs).
    const body = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      body.set(chunk, at);
      at += chunk.length;
    }
    const end = { body: body.buffer };
    // undici gives the connection back to its pool one event-loop turn after
    // this call (setImmediate); a request made before would open another one.
    setImmediate(() => setImmediate(() => this.#finish(end)));
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    if (this.#headDone) this.#finish({ error });
    else {
      this.#signal.removeEventListener('abort', this.#onAbort);
      this.#head.reject(error);
    }
  }

  #finish(end: { body: ArrayBuffer } | { error: Error }): void {
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#end = end;
    const w = this.#waiting;
    this.#waiting = undefined;
    if (w === undefined) return;
    if ('body' in end) w.resolve(end.body);
    else w.reject(end.error);
  }
}

/** A DoH fetch through an undici dispatcher (an Agent: one pool of kept-alive connections per origin). */
export function undiciDohFetch(dispatcher: Dispatcher): DohFetch {
  return (url, init) =>
    new Promise<DohResponse>((resolve, reject) => {
      const slash = url.indexOf('/', url.indexOf('//') + 2);
      const exchange = new Exchange(init.signal, { resolve, reject });
      dispatcher.dispatch(
        {
          origin: slash < 0 ? url : url.slice(0, slash),
          path: slash < 0 ? '/' : url.slice(slash),
          method: init.method,
          headers: init.headers,
          body: init.body ?? null,
        },
        exchange,
      );
    });
}

/** The DoH fetch of `LexClient` in Node, and its connections (`close()` them when done). */
export class NodeDoh {
  /** TLS with ALPN (h2, http/1.1); plain HTTP/1.1. */
  readonly #agent = new (undici().Agent)({ allowH2: true });
  /** Plain HTTP/2 with prior knowledge, made when first needed. */
  #h2c: Agent | undefined;
  readonly #fetch = undiciDohFetch(this.#agent);
  #h2cFetch: DohFetch | undefined;
  /** What each plain origin spoke last. */
  readonly #plain = new Map<string, Mode>();

  readonly fetch: DohFetch = async (url, init) => {
    if (url.startsWith('https:')) return this.#fetch(url, init);
    // The transport's URLs are normalized hrefs: the origin is the text before the path.
    const slash = url.indexOf('/', url.indexOf('//') + 2);
    const origin = slash < 0 ? url : url.slice(0, slash);
    const first = this.#plain.get(origin) ?? 'h1';
    try {
      return await this.#try(first, origin, url, init);
    } catch (e) {
      if (init.signal.aborted || !otherProtocol(e)) throw e;
      return this.#try(first === 'h1' ? 'h2c' : 'h1', origin, url, init);
    }
  };

  async #try(mode: Mode, origin: string, url: string, init: Init): Promise<DohResponse> {
    const res = await (mode === 'h1' ? this.#fetch : this.#h2c$())(url, init);
    this.#plain.set(origin, mode);
    return res;
  }

  #h2c$(): DohFetch {
    // undici's Pool reads `useH2c` at the top level (its types list it only under h2Options, which Pool does not pass on).
    this.#h2c ??= new (undici().Agent)({ useH2c: true } as Agent.Options);
    this.#h2cFetch ??= undiciDohFetch(this.#h2c);
    return this.#h2cFetch;
  }

  async close(): Promise<void> {
    await Promise.all([this.#agent.close(), this.#h2c?.close()]);
  }
}

/** A failure saying the server speaks the other HTTP version (not a timeout or refusal). */
function otherProtocol(e: unknown): boolean {
  return (
    e instanceof undici().errors.HTTPParserError ||
    e instanceof undici().errors.SocketError ||
    (e instanceof Error &&
      /ERR_HTTP2|GOAWAY|PROTOCOL_ERROR/i.test(
        `${String((e as { code?: unknown }).code)} ${e.message}`,
      ))
  );
}
