/**
 * undici, loaded the first time the client makes an HTTP request (the THTTP
 * step, DoH over TLS or HTTP/2), not when `lexroute` is imported: most of
 * the import's time was undici's own loading, which a program that only
 * parses URNs never needs. `createRequire` keeps the call synchronous, so
 * the callers' APIs (a dispatcher made on demand) stay as they were.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
// eslint-disable-next-line no-restricted-syntax -- module state: the loaded module itself, the same for every client (what a static import would hold).
let loaded: typeof Undici | undefined;

/** The undici module, loaded on first call. */
export function undici(): typeof Undici {
  return (loaded ??= require('undici') as typeof Undici);
}
