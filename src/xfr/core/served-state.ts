/**
 * The served serial as one fact across restarts, the decisions (I/O in
 * `../served-state.ts`): unchanged content is served again as it was,
 * changed content gets a serial past every serial served, so a secondary
 * never meets one serial with two contents (RFC 1982 section 3.2, RFC 1996
 * section 3.7).
 */
import { err, ok, type Result } from '../../kit/core/result.ts';
import { serialAdd, serialCompare } from './serial.ts';

/** What the state folder keeps of a zone (one `<origin>serial` file, JSON). */
export interface ServedState {
  readonly origin: string;
  /** The SOA serial last served. */
  readonly serial: number;
  /** The content hash that serial was served for. */
  readonly hash: string;
  /** The highest serial ever served (RFC 1982 order); `serial` in files written before it was kept. */
  readonly highest: number;
  /** The zone was served signed (inline signing): its signed version is kept as `<origin>signed`. */
  readonly signed: boolean;
}

export interface ServedStateError {
  /** Registered in SERVER_CODES (authority/codes.ts), as JOURNAL_CORRUPT of `journal.ts`. */
  readonly code: 'SERVED_STATE_CORRUPT';
  readonly message: string;
}

/** The later of two serials (RFC 1982); `a` when they are not comparable. */
export function laterSerial(a: number, b: number): number {
  return serialCompare(b, a) > 0 ? b >>> 0 : a >>> 0;
}

export function decodeServedState(text: string): Result<ServedState, ServedStateError> {
  const corrupt = (message: string) => err({ code: 'SERVED_STATE_CORRUPT' as const, message });
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return corrupt(`not JSON: ${(e as Error).message}`);
  }
  const o = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const { origin, serial, hash, highest, signed } = o;
  const u32 = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x < 2 ** 32;
  if (typeof origin !== 'string' || typeof hash !== 'string' || !u32(serial))
    return corrupt('expected {"origin", "serial", "hash"} with serial a 32-bit unsigned integer');
  const s = serial as number;
  return ok({
    origin,
    serial: s,
    hash,
    highest: u32(highest) ? laterSerial(s, highest as number) : s,
    signed: signed === true,
  });
}

export function encodeServedState(s: ServedState): string {
  const { origin, serial, hash, highest, signed } = s;
  return `${JSON.stringify({ origin, serial, hash, highest, signed })}\n`;
}

/** The state after serving `serial` for `hash` (the highest carried on from `before`). */
export function servedNow(
  before: ServedState | undefined,
  origin: string,
  serial: number,
  hash: string,
  signed: boolean,
): ServedState {
  const highest = before === undefined ? serial : laterSerial(before.highest, serial);
  return { origin, serial: serial >>> 0, hash, highest, signed };
}

/** How inline signing starts a zone: `resume` the kept version, or `sign` past `previous`. */
export type SigningStart =
  { readonly kind: 'resume' } | { readonly kind: 'sign'; readonly previous: number | undefined };

export function signingStart(
  state: ServedState | undefined,
  hash: string | undefined,
  kept: { readonly serial: number; readonly refreshAt: number } | undefined,
  nowMs: number,
): SigningStart {
  if (state === undefined) return { kind: 'sign', previous: kept?.serial };
  // A kept version the state does not name was signed but maybe served (a stop between the two writes).
  const previous = kept === undefined ? state.highest : laterSerial(state.highest, kept.serial);
  const same =
    state.signed &&
    hash !== undefined &&
    hash === state.hash &&
    kept !== undefined &&
    kept.serial === state.serial &&
    kept.refreshAt > nowMs;
  return same ? { kind: 'resume' } : { kind: 'sign', previous };
}

/** What a first load should warn of; `rewrites`: the served serial is not the file's. */
export type StartWarning =
  | { readonly kind: 'no-state'; readonly serial: number }
  | { readonly kind: 'below-served'; readonly serial: number; readonly highest: number };

export function startWarning(
  hasFolder: boolean,
  state: ServedState | undefined,
  served: number,
  rewrites: boolean,
): StartWarning | undefined {
  if (!hasFolder) return rewrites ? { kind: 'no-state', serial: served } : undefined;
  if (state !== undefined && serialCompare(served, state.highest) < 0)
    return { kind: 'below-served', serial: served, highest: state.highest };
  return undefined;
}

/** The serial after `previous` for a signed version whose file says `fileSerial` (the later of the two). */
export function signedSerial(fileSerial: number, previous: number | undefined): number {
  return previous === undefined
    ? fileSerial >>> 0
    : laterSerial(fileSerial, serialAdd(previous, 1));
}
