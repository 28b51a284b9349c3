/**
 * SOA serial arithmetic (RFC 1982 section 3.2): serials on a circle of
 * 2^32, greater when less than half the circle ahead; exactly half apart is
 * undefined.
 */

/** -1 when a < b, 0 when equal, 1 when a > b, NaN when undefined (2^31 apart). */
export function serialCompare(a: number, b: number): number {
  a >>>= 0;
  b >>>= 0;
  if (a === b) return 0;
  const d = (b - a) >>> 0;
  if (d === 0x80000000) return Number.NaN;
  return d < 0x80000000 ? -1 : 1;
}

/** `serial + n` on the circle (RFC 1982 section 3.1: n at most 2^31 - 1). */
export function serialAdd(serial: number, n: number): number {
  return (serial + n) >>> 0;
}

/** The next serial: YYYYMMDDnn of `date` when ahead of the current one, else plus one. */
export function nextSerial(current: number, date?: number): number {
  if (date !== undefined) {
    const dated = (date * 100) >>> 0;
    if (date >= 19700101 && date <= 42949672 && serialCompare(dated, current) > 0) return dated;
  }
  return serialAdd(current, 1);
}

/** How a reload's serial is chosen: `keep` the file's, `date` (YYYYMMDDnn, else plus one), `increment`. */
export type SerialPolicy = 'keep' | 'date' | 'increment';

export interface SerialChoice {
  /** The serial to serve. */
  readonly serial: number;
  /** It differs from the file's serial (raised now, or kept from an earlier raise). */
  readonly rewritten: boolean;
  /** It was raised by this reload (a new version for the secondaries). */
  readonly raised: boolean;
}

/** The serial of a reloaded zone: one raised in the file is taken; an unchanged zone keeps `served`. */
export function chooseSerial(
  policy: SerialPolicy,
  fileSerial: number,
  served: number | undefined,
  changed: boolean,
  date?: number,
): SerialChoice {
  fileSerial >>>= 0;
  if (policy === 'keep' || served === undefined || serialCompare(fileSerial, served) > 0)
    return { serial: fileSerial, rewritten: false, raised: false };
  if (!changed)
    return { serial: served >>> 0, rewritten: served >>> 0 !== fileSerial, raised: false };
  const serial = nextSerial(served, policy === 'date' ? date : undefined);
  return { serial, rewritten: serial !== fileSerial, raised: true };
}
