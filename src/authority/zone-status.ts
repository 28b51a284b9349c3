/**
 * What each served zone is doing, for `/metrics` and the control channel,
 * kept from the server's own log events (`tapLogger` passes every event on).
 */
import { absoluteLowerName } from '../kit/core/names.ts';
import type { LogFields, Logger } from './log.ts';
import { ZoneTrafficBook } from './zone-traffic.ts';

export interface ZoneStatus {
  readonly origin: string | undefined;
  readonly file: string;
  /** Epoch ms of the version being served; undefined when none was ever loaded. */
  loadedAt: number | undefined;
  records: number | undefined;
  /** Epoch ms and result of the last load attempt. */
  lastAttemptAt: number;
  lastResult: 'loaded' | 'failed';
  /** The first error of the last failed attempt (code, message, line). */
  lastError: string | undefined;
}

export { soaSerial } from './zones/sources.ts';

/** The events that end a load attempt. */
const LOAD_EVENTS = new Set(['zone_loaded', 'zone_rejected', 'zone_unreadable']);

export class ZoneStatusBook {
  /** By file. */
  readonly files = new Map<string, ZoneStatus>();
  private pendingError = new Map<string, string>();
  /** Transfers out and NOTIFY results, by zone (`zone-traffic.ts`). */
  readonly traffic = new ZoneTrafficBook();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** The status of the file serving `origin` (absolute, trailing dot), or of `file`. */
  find(originOrFile: string): ZoneStatus | undefined {
    const o = absoluteLowerName(originOrFile);
    for (const s of this.files.values()) if (s.origin === o) return s;
    return this.files.get(originOrFile);
  }

  /** Forget a zone no longer served (`ctl zone remove`): status and metrics stop listing it. */
  forget(origin: string): void {
    for (const [file, s] of this.files) if (s.origin === origin) this.files.delete(file);
    this.traffic.zones.delete(origin);
  }

  observe(event: string, f: LogFields): void {
    this.traffic.observe(event, f);
    const file = typeof f.file === 'string' ? f.file : undefined;
    if (file === undefined) return;
    if (event === 'zone_diagnostic' && f.code !== undefined && !this.pendingError.has(file)) {
      const where = f.line !== undefined ? ` (line ${String(f.line)})` : '';
      this.pendingError.set(file, `${String(f.code)}: ${String(f.message)}${where}`);
    } else if (LOAD_EVENTS.has(event)) {
      const prev = this.files.get(file);
      const loaded = event === 'zone_loaded';
      const failure = typeof f.error === 'string' ? f.error : 'load failed';
      const at = this.now();
      this.files.set(file, {
        origin: loaded && typeof f.origin === 'string' ? f.origin : prev?.origin,
        file,
        loadedAt: loaded ? at : prev?.loadedAt,
        records: !loaded ? prev?.records : typeof f.records === 'number' ? f.records : undefined,
        lastAttemptAt: at,
        lastResult: loaded ? 'loaded' : 'failed',
        lastError: loaded ? undefined : (this.pendingError.get(file) ?? failure),
      });
      this.pendingError.delete(file);
    }
  }
}

/** A logger that passes every event to `log` and lets `book` observe it. */
export function tapLogger(log: Logger, book: ZoneStatusBook): Logger {
  const tap =
    (level: 'info' | 'warn' | 'error') =>
    (e: string, f?: LogFields): void => {
      book.observe(e, f ?? {});
      log[level](e, f);
    };
  return {
    debug: (e, f) => log.debug(e, f),
    info: tap('info'),
    warn: tap('warn'),
    error: tap('error'),
  };
}
