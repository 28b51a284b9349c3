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
    } else if (event === 'zone_loaded') {
      const prev = this.files.get(file);
      const at = this.now();
      this.files.set(file, {
        origin: typeof f.origin === 'string' ? f.origin : prev?.origin,
        file,
        loadedAt: at,
        records: typeof f.records === 'number' ? f.records : undefined,
        lastAttemptAt: at,
        lastResult: 'loaded',
        lastError: undefined,
      });
      this.pendingError.delete(file);
    } else if (event === 'zone_rejected' || event === 'zone_unreadable') {
      const prev = this.files.get(file);
      const error =
        this.pendingError.get(file) ?? (typeof f.error === 'string' ? f.error : 'load failed');
      this.pendingError.delete(file);
      this.files.set(file, {
        origin: prev?.origin,
        file,
        loadedAt: prev?.loadedAt,
        records: prev?.records,
        lastAttemptAt: this.now(),
        lastResult: 'failed',
        lastError: error,
      });
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
