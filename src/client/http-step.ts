/**
 * The HTTP step in Node: THTTP requests sent with undici's
 * `Dispatcher.request` (origin + path), which sends the URN after `?` as
 * given (RFC 2169 section 2.0); top-level request() would re-serialise it.
 */
import type { Dispatcher } from 'undici';
import { undici } from './undici-lazy.ts';
import type { HttpExchange } from '../ddds/core/trace.ts';
import { HttpStepError } from './errors.ts';
import {
  thttpWith,
  type HttpGet,
  type HttpStepOptions as PortableOptions,
  type HttpStepResult,
} from './thttp.ts';
import type { ThttpService } from './thttp-url.ts';

export type { HttpStepResult } from './thttp.ts';

export interface HttpStepOptions extends PortableOptions {
  /** undici dispatcher (an Agent, or a MockAgent in tests). */
  readonly dispatcher?: Dispatcher;
}

/** One HTTP request and its response, for the trace. */
export type { HttpExchange };

function header(
  h: Record<string, string | string[] | undefined>,
  name: string,
): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

async function readBody(
  body: Dispatcher.ResponseData['body'],
  max: number,
  url: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > max) {
      body.destroy();
      throw new HttpStepError('HTTP_BODY_TOO_LARGE', `response from ${url} is over ${max} bytes`, {
        url,
      });
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}

/** One GET through an undici dispatcher. */
export function undiciGet(dispatcher: Dispatcher): HttpGet {
  return async (req) => {
    const res = await dispatcher.request({
      origin: req.origin,
      path: req.path,
      method: 'GET',
      signal: req.signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      headers: req.headers,
    });
    return {
      status: res.statusCode,
      location: header(res.headers, 'location'),
      contentType: header(res.headers, 'content-type'),
      body: await readBody(res.body, req.maxBodyBytes, req.url),
    };
  };
}

/** GET `url` (a resolver URL) and interpret the answer for `service`. */
export function thttpRequest(
  url: string,
  service: ThttpService,
  options: HttpStepOptions = {},
): Promise<HttpStepResult> {
  return thttpWith(
    undiciGet(options.dispatcher ?? undici().getGlobalDispatcher()),
    url,
    service,
    options,
  );
}
