/**
 * undici, loaded on the client's first HTTP request, not on import (a program
 * that only parses URNs never needs it); `createRequire` keeps it synchronous.
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
