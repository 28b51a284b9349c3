/**
 * The DoH transport's requests in Node, over HTTP/1.1 or HTTP/2 as the
 * server speaks. The plain path is undici; its accelerator, beside it, is
 * the small HTTP/1.1 client of `doh-h1.ts` (test/client/doh-http.test.ts
 * checks that both give the same answers):
 *
 * - `https://`: undici, HTTP/2 or HTTP/1.1 chosen by ALPN in the TLS
 *   handshake (`allowH2`).
 * - `http://`: HTTP/1.1 first, on `doh-h1.ts` (undici cost 2.5x the wall
 *   time of a cold resolution on loopback: bench/doh.ts); when the server
 *   does not speak HTTP/1.1 (BIND's and Unbound's plain DoH listeners speak
 *   HTTP/2 only: they answer an HTTP/1.1 request with an HTTP/2 SETTINGS
 *   frame and close), HTTP/2 with prior knowledge (h2c, RFC 9113 section
 *   3.3) on undici, and the other way round when a server remembered as h2c
 *   stops speaking it. What each origin spoke last is remembered, so only
 *   its first exchange pays for the try.
 *
 * @see RFC 8484 section 5.2: "HTTP/2 [...] is the minimum RECOMMENDED
 * version of HTTP for use with DoH."
 * @see RFC 9113 section 3.3: "A client that knows that a server supports
 * HTTP/2 can establish a TCP connection and send the connection preface".
 */
import type { Agent, Dispatcher } from 'undici';
import { undici } from './undici-lazy.ts';
import type { DohFetch, DohResponse } from './doh.ts';
import { Http1Error, Http1Pool, http1DohFetch } from './doh-h1.ts';

type Mode = 'h1' | 'h2c';
type Init = Parameters<DohFetch>[1];

/** A DoH fetch through an undici dispatcher. */
export function undiciDohFetch(dispatcher: Dispatcher): DohFetch {
  return async (url, init) => {
    const res = await undici().request(url, {
      dispatcher,
      method: init.method,
      headers: init.headers,
      signal: init.signal,
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const response: DohResponse = {
      status: res.statusCode,
      headers: {
        get: (name) => {
          const v = res.headers[name];
          return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
        },
      },
      body: { cancel: () => res.body.dump() },
      arrayBuffer: () => res.body.arrayBuffer(),
    };
    return response;
  };
}

/** The DoH fetch of `LexClient` in Node, and its connections (`close()` them when done). */
export class NodeDoh {
  /** TLS with ALPN (h2, http/1.1). */
  readonly #negotiated = new (undici().Agent)({ allowH2: true });
  /** Plain HTTP/2 with prior knowledge, made when first needed. */
  #h2c: Agent | undefined;
  readonly #pool = new Http1Pool();
  readonly #h1 = http1DohFetch(this.#pool);
  readonly #tls = undiciDohFetch(this.#negotiated);
  #h2cFetch: DohFetch | undefined;
  /** What each plain origin spoke last. */
  readonly #plain = new Map<string, Mode>();

  readonly fetch: DohFetch = async (url, init) => {
    if (url.startsWith('https:')) return this.#tls(url, init);
    const origin = new URL(url).origin;
    const first = this.#plain.get(origin) ?? 'h1';
    try {
      return await this.#try(first, origin, url, init);
    } catch (e) {
      if (init.signal.aborted || !otherProtocol(e)) throw e;
      return this.#try(first === 'h1' ? 'h2c' : 'h1', origin, url, init);
    }
  };

  async #try(mode: Mode, origin: string, url: string, init: Init): Promise<DohResponse> {
    const res = await (mode === 'h1' ? this.#h1 : this.#h2c$())(url, init);
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
    this.#pool.close();
    await Promise.all([this.#negotiated.close(), this.#h2c?.close()]);
  }
}

/**
 * A failure that says the server speaks another protocol on this port: the
 * answer is not HTTP/1.x (an HTTP/2 frame), or the connection closed or
 * broke before an answer (an HTTP/1.1 server's reply to the HTTP/2
 * preface). Timeouts and refused connections are not.
 */
function otherProtocol(e: unknown): boolean {
  return (
    e instanceof Http1Error ||
    e instanceof undici().errors.HTTPParserError ||
    e instanceof undici().errors.SocketError ||
    (e instanceof Error &&
      /ERR_HTTP2|GOAWAY|PROTOCOL_ERROR/i.test(
        `${String((e as { code?: unknown }).code)} ${e.message}`,
      ))
  );
}
