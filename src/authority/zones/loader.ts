/**
 * The zone loader of a server configuration: the one zone path (`servable.ts`) in the zone-load
 * worker, with the configuration's limits, strictness and inline signing, for every start, reload
 * and transfer, in `serve` and `dev` alike.
 */
import path from 'node:path';
import { dnssecRefresh, type ServerConfig } from '../../config/server.ts';
import type { InlineSigning } from '../../dnssec/inline.ts';
import { BackgroundZoneLoader, LOAD_TIMEOUT_MS, SIGNED_LOAD_TIMEOUT_MS } from './background.ts';
import type { WorkerLoadOptions } from './worker.ts';

/** The inline signing of a server configuration (undefined when `dnssec.keys` is null). */
export function inlineSigningFor(config: ServerConfig, cwd: string): InlineSigning | undefined {
  const d = config.dnssec;
  if (d.keys === null) return undefined;
  return {
    keysDir: path.resolve(cwd, d.keys),
    nsec3: d.nsec3,
    optOut: d.optOut,
    validity: d.validity,
    refresh: dnssecRefresh(d),
    // Signed versions are kept with the served serial (a restart serves them again).
    ...(config.transfer.stateDir !== null
      ? { stateDir: path.resolve(cwd, config.transfer.stateDir) }
      : {}),
  };
}

/** `zoneFiles.loadTimeout` in ms; 0 picks the default for plain or signed loads. */
export function loadTimeoutMs(seconds: number, signing: boolean): number {
  if (seconds > 0) return seconds * 1000;
  return signing ? SIGNED_LOAD_TIMEOUT_MS : LOAD_TIMEOUT_MS;
}

/** The loader of a configuration; `shared`: which zones come on SharedArrayBuffers (`WorkerLoadOptions`). */
export function zoneLoaderFor(
  config: ServerConfig,
  cwd: string,
  shared: WorkerLoadOptions['shared'],
): BackgroundZoneLoader {
  const z = config.zoneFiles;
  const sign = inlineSigningFor(config, cwd);
  return new BackgroundZoneLoader(
    {
      maxBytes: z.maxBytes,
      maxEntryChars: z.maxEntryChars,
      includeDirs: z.includeDirs.map((d) => path.resolve(cwd, d)),
      nice: z.loadNice,
      strict: z.strict,
      ...(sign ? { sign } : {}),
      ...(shared ? { shared } : {}),
    },
    // The first load runs in the server's thread, before it answers (`offThread` after it).
    { timeoutMs: loadTimeoutMs(z.loadTimeout, sign !== undefined), inThreadFirst: true },
  );
}
