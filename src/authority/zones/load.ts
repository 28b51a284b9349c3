/**
 * Reading zone files and directories: the one load path of `serve`, `zone check`, `zone print`
 * and `dev`. Only regular files (non-blocking open, fstat), up to a size limit; read block by
 * block (a small file in one synchronous call). `$INCLUDE` reads the zone's directory (or those
 * allowed) within the same byte budget.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  read,
  readSync,
  realpathSync,
  statSync,
  type Stats,
} from 'node:fs';
import { isAscii } from 'node:buffer';
import { StringDecoder } from 'node:string_decoder';
import { basename, dirname, resolve, sep } from 'node:path';
import { buildStoreZone } from '../../dns/core/zone/build.ts';
import type { ResourceRecord, Zone, ZoneDiagnostic } from '../../dns/core/zone/model.ts';
import type { ZoneCode } from '../../dns/core/zone/codes.ts';
import {
  ZoneParseSession,
  type ExpectDirective,
  type ParseOptions,
  type ParseResult,
} from '../../dns/core/zone/parser.ts';
import { ZoneStore } from '../../dns/core/zone/store.ts';
import { recordViews } from '../../dns/core/zone/views.ts';
import { TYPE_NAPTR } from '../../dns/core/rr/types.ts';
import {
  fileNameOrigin,
  inferOriginFromFileName,
  zoneFilesIn,
  ZONE_FILE_PATTERNS,
} from './sources.ts';

export { inferOriginFromFileName, zoneFilesIn, ZONE_FILE_PATTERNS };

/** Default size limit of one load (the zone file and its `$INCLUDE`s): 1 GiB. */
export const DEFAULT_MAX_ZONE_BYTES = 1 << 30;

export interface LoadOptions {
  /** Zone apex given from outside; else from the file name, `$ORIGIN` or the SOA owner. */
  readonly origin?: string;
  /**
   * Allow `$INCLUDE` (default: true for `loadZoneFile`, false for
   * `loadZoneText`, which has no file of its own).
   */
  readonly allowInclude?: boolean;
  /**
   * Directories `$INCLUDE` may read from besides the zone file's own (and
   * what is below them). Default none.
   */
  readonly includeDirs?: readonly string[];
  readonly maxIncludeDepth?: number;
  readonly defaultTtl?: number;
  /** Most octets read for one zone, `$INCLUDE`d files counted (default 1 GiB). */
  readonly maxBytes?: number;
  /** Longest entry in characters (default 1 Mi; see ParseOptions.maxEntryChars). */
  readonly maxEntryChars?: number;
  /** Stops the reading (ZONE_LOAD_ABORTED) when aborted. */
  readonly signal?: AbortSignal;
  /** Called after each block read: octets read so far and the file size. */
  readonly onProgress?: (read: number, size: number) => void;
  /**
   * Each block of the zone file as it is read (not its `$INCLUDE`s): the
   * reload hashes the content in the same pass as the parse.
   */
  readonly onBlock?: (block: Uint8Array) => void;
}

export interface LoadResult {
  /** The zone, when the file has no errors. */
  readonly zone?: Zone;
  readonly diagnostics: ZoneDiagnostic[];
  readonly file: string;
  readonly origin?: string;
  /** The parsed records in file order, out-of-zone ones left out (made on first access, for linting). */
  readonly records: readonly ResourceRecord[];
  /** The NAPTR records of `records` (what the lint reads), made at each access without the others. */
  readonly naptr: readonly ResourceRecord[];
  readonly expects: readonly ExpectDirective[];
  /** Size and modification time of the file read (fstat of the descriptor read), when it was opened. */
  readonly stat?: FileStamp;
}

/** What identifies a file's version without reading it: its size and modification time. */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
}

/** A refusal to read a file, with the code the parser reports. */
class ZoneReadError extends Error {
  readonly code: ZoneCode;
  constructor(code: ZoneCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Whether `path` is `dir` or below it (both real paths). */
function within(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

/** The `$INCLUDE` source: regular files in the zone's or an allowed directory (links resolved), within the budget. */
function includeReader(file: string, options: LoadOptions, budget: { left: number }) {
  // Resolved at the first `$INCLUDE` (most zone files have none).
  let found: string[] | undefined;
  const rootsOf = (): string[] => {
    if (found) return found;
    found = [];
    for (const d of [dirname(resolve(file)), ...(options.includeDirs ?? [])]) {
      try {
        found.push(realpathSync(resolve(d)));
      } catch {
        // a directory that does not exist allows nothing
      }
    }
    return found;
  };
  return (path: string): string => {
    const roots = rootsOf();
    let real: string;
    try {
      real = realpathSync(path);
    } catch (e) {
      throw new ZoneReadError('ZONE_INCLUDE_NOT_FOUND', (e as Error).message);
    }
    if (!roots.some((r) => within(real, r))) {
      throw new ZoneReadError(
        'ZONE_INCLUDE_OUTSIDE',
        `${real} is outside the zone file's directory (${roots[0] ?? dirname(file)}); allow other directories with zoneFiles.includeDirs`,
      );
    }
    const fd = openRegular(real, budget.left);
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.allocUnsafe(Math.min(size, budget.left) + 1);
      let n = 0;
      for (;;) {
        const got = readSync(fd, buf, n, buf.length - n, null);
        if (got === 0) break;
        n += got;
        if (n > budget.left) throw tooLarge(path, budget.left);
      }
      budget.left -= n;
      return buf.toString('utf8', 0, n);
    } finally {
      closeSync(fd);
    }
  };
}

function tooLarge(path: string, limit: number): ZoneReadError {
  return new ZoneReadError(
    'ZONE_FILE_TOO_LARGE',
    `${path} is larger than the ${limit} octets left for this zone (zoneFiles.maxBytes)`,
  );
}

/** Open a regular file only (non-blocking: a FIFO with no writer must not stop the process). */
function openRegular(path: string, limit: number): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw new ZoneReadError(
      'ZONE_NOT_REGULAR_FILE',
      `${path} is not a regular file (${kindOf(st)}); only regular files are read`,
    );
  }
  if (st.size > limit) {
    closeSync(fd);
    throw tooLarge(path, limit);
  }
  return fd;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  return 'not a file';
}

/** Parse and build one zone from text (the load path without the disk; `$INCLUDE` off unless allowed). */
export function loadZoneText(text: string, file: string, options: LoadOptions = {}): LoadResult {
  const opts = { ...options, allowInclude: options.allowInclude ?? false };
  const { session, store, naming } = startParse(file, opts);
  session.push(text);
  return finish(session.end(), store, file, naming);
}

/** Where the origin came from: the caller, the file name, or the file's content. */
interface Naming {
  readonly from: 'explicit' | 'file-name' | 'content';
  /** The stem of a zone-file name that is not a domain name (`@` of `@.zone`). */
  readonly unusable?: string;
}

function startParse(file: string, options: LoadOptions) {
  const byName = fileNameOrigin(file);
  const named = byName && 'origin' in byName ? byName.origin : undefined;
  const origin = options.origin ?? named;
  const naming: Naming = {
    from: options.origin !== undefined ? 'explicit' : named !== undefined ? 'file-name' : 'content',
    ...(byName && 'unusable' in byName ? { unusable: byName.unusable } : {}),
  };
  const budget = { left: options.maxBytes ?? DEFAULT_MAX_ZONE_BYTES };
  // Records stream from the parser into the store's columns: no list of
  // record objects is ever made on this path.
  const store = new ZoneStore();
  const parseOptions: ParseOptions = {
    file,
    sink: store,
    ...(origin !== undefined ? { origin } : {}),
    ...(options.allowInclude !== false
      ? { includeSource: includeReader(file, options, budget) }
      : {}),
    ...(options.maxIncludeDepth !== undefined ? { maxIncludeDepth: options.maxIncludeDepth } : {}),
    ...(options.defaultTtl !== undefined ? { defaultTtl: options.defaultTtl } : {}),
    ...(options.maxEntryChars !== undefined ? { maxEntryChars: options.maxEntryChars } : {}),
  };
  return { session: new ZoneParseSession(parseOptions), store, naming, budget };
}

/** A LoadResult whose `records` are made from the store on first access. */
function result(
  store: ZoneStore,
  fields: Omit<LoadResult, 'records' | 'naptr'>,
  outOfZone: boolean,
): LoadResult {
  let records: ResourceRecord[] | undefined;
  return {
    ...fields,
    get records(): readonly ResourceRecord[] {
      return (records ??= recordViews(store, outOfZone));
    },
    // Not kept: the server's load reads them once, and its zone outlives the views.
    get naptr(): readonly ResourceRecord[] {
      return records
        ? records.filter((r) => r.type === TYPE_NAPTR)
        : recordViews(store, outOfZone, TYPE_NAPTR);
    },
  };
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** Diagnostics about the origin rule itself: an unusable file name, a file that names another zone. */
function namingDiagnostics(parsed: ParseResult, file: string, naming: Naming): ZoneDiagnostic[] {
  const at = { file, line: 1, column: 1 };
  const out: ZoneDiagnostic[] = [];
  if (naming.unusable !== undefined && naming.from === 'content' && parsed.origin !== undefined) {
    out.push({
      code: 'ZONE_FILE_NAME_NOT_ORIGIN',
      message: `the file name ${basename(file)} does not spell a domain name ("${naming.unusable}"); the origin ${parsed.origin} comes from the file's content`,
      severity: 'warning',
      position: at,
    });
  }
  if (naming.from === 'file-name' && parsed.origin !== undefined && parsed.soaOwner !== undefined) {
    if (!sameName(parsed.origin, parsed.soaOwner)) {
      out.push({
        code: 'ZONE_ORIGIN_MISMATCH',
        message: `the file name ${basename(file)} gives the origin ${parsed.origin}, but the file's SOA is owned by ${parsed.soaOwner}: rename the file, or give the origin explicitly (--origin, --zones ORIGIN=FILE, or "origin" in the configuration)`,
        severity: 'error',
        position: at,
      });
    }
  }
  return out;
}

function noOriginMessage(naming: Naming, file: string): string {
  const base =
    'cannot tell the zone origin: pass --origin, name the file <origin>.zone, or start it with $ORIGIN';
  if (naming.unusable === undefined) return base;
  return `${base} (the file name ${basename(file)} does not spell a domain name: "${naming.unusable}")`;
}

function finish(
  parsed: ParseResult,
  store: ZoneStore,
  file: string,
  naming: Naming,
  stat?: FileStamp,
): LoadResult {
  const stamp = stat ? { stat } : {};
  const diagnostics = [...parsed.diagnostics];
  const origin = parsed.origin;
  if (origin === undefined) {
    diagnostics.push({
      code: 'ZONE_NO_ORIGIN',
      message: noOriginMessage(naming, file),
      severity: 'error',
      position: { file, line: 1, column: 1 },
    });
    return result(store, { diagnostics, file, expects: parsed.expects, ...stamp }, true);
  }
  for (const d of namingDiagnostics(parsed, file, naming)) diagnostics.push(d);
  const built = buildStoreZone(store, { origin });
  for (const d of built.diagnostics) diagnostics.push(d);
  const hasError = diagnostics.some((d) => d.severity === 'error');
  // Out-of-zone records are ignored (reported once by the build), not linted.
  return result(
    store,
    {
      ...(built.zone && !hasError ? { zone: built.zone } : {}),
      diagnostics,
      file,
      origin,
      expects: parsed.expects,
      ...stamp,
    },
    false,
  );
}

/** Size of the blocks a zone file is read in: the whole text is never held at once. */
const BLOCK = 1 << 16;

/** Reads the next octets of the file into `buf` (0 at the end). */
type BlockReader = (buf: Buffer) => number | Promise<number>;

/** The reader of an open file: synchronous below one block, asynchronous block by block above. */
function blockReader(fd: number, size: number): BlockReader {
  if (size < BLOCK) return (buf) => readSync(fd, buf, 0, buf.length, null);
  return (buf) =>
    new Promise((done, fail) => {
      read(fd, buf, 0, buf.length, null, (e, n) => (e ? fail(e) : done(n)));
    });
}

/** Read the file block by block into the parse (an ASCII block decoded as Latin-1, the cheapest string). */
async function readInto(
  next: BlockReader,
  session: ZoneParseSession,
  size: number,
  limit: number,
  options: LoadOptions,
): Promise<string | undefined> {
  // A small file fits one read (and one octet more, to see that it did not grow).
  const buf = Buffer.allocUnsafe(Math.min(BLOCK, size + 1));
  // Made at the first block that is not ASCII (most zone files have none).
  let decoder: StringDecoder | undefined;
  let total = 0;
  for (;;) {
    if (options.signal?.aborted) return 'ZONE_LOAD_ABORTED';
    const n = await next(buf);
    if (n === 0) break;
    total += n;
    if (total > limit) return 'ZONE_FILE_TOO_LARGE';
    const block = buf.subarray(0, n);
    options.onBlock?.(block);
    if (decoder === undefined && isAscii(block)) session.push(block.toString('latin1'));
    else {
      // A multi-byte character cut by the block end stays in the decoder.
      decoder ??= new StringDecoder('utf8');
      session.push(decoder.write(block));
    }
    options.onProgress?.(total, size);
    if (session.stopped) return undefined;
    // A small file read short of its buffer is at its end (a regular file reads short only there).
    if (n < buf.length && size < BLOCK) break;
  }
  if (decoder) session.push(decoder.end());
  return undefined;
}

function unreadable(path: string, code: ZoneCode, message: string, stat?: FileStamp): LoadResult {
  return {
    diagnostics: [
      { code, message, severity: 'error', position: { file: path, line: 0, column: 0 } },
    ],
    file: path,
    records: [],
    naptr: [],
    expects: [],
    ...(stat ? { stat } : {}),
  };
}

const cannotRead = (path: string, e: unknown) =>
  `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`;

/** Open a zone file (non-blocking, as `openRegular`): its descriptor and stamp, or why not. */
function openZoneFile(path: string): { fd: number; stat: FileStamp } | LoadResult {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    return unreadable(path, 'ZONE_FILE_UNREADABLE', cannotRead(path, e));
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) {
      closeSync(fd);
      const why = `cannot read ${path}: it is ${kindOf(st)}; only regular files are read`;
      return unreadable(path, 'ZONE_NOT_REGULAR_FILE', why);
    }
    return { fd, stat: { size: st.size, mtimeMs: st.mtimeMs } };
  } catch (e) {
    closeSync(fd);
    return unreadable(path, 'ZONE_FILE_UNREADABLE', cannotRead(path, e));
  }
}

/** Read, parse, build and validate one zone file (the server's load path). */
export async function loadZoneFile(path: string, options: LoadOptions = {}): Promise<LoadResult> {
  const limit = options.maxBytes ?? DEFAULT_MAX_ZONE_BYTES;
  const opened = openZoneFile(path);
  if (!('fd' in opened)) return opened;
  const { fd, stat } = opened;
  try {
    if (stat.size > limit) {
      return unreadable(path, 'ZONE_FILE_TOO_LARGE', tooLarge(path, limit).message, stat);
    }
    const { session, store, naming, budget } = startParse(path, options);
    budget.left -= stat.size;
    const stop = await readInto(blockReader(fd, stat.size), session, stat.size, limit, options);
    if (stop === 'ZONE_LOAD_ABORTED') {
      return unreadable(path, stop, `loading ${path} was stopped`, stat);
    }
    if (stop === 'ZONE_FILE_TOO_LARGE') {
      return unreadable(path, stop, `${path} grew past ${limit} octets while it was read`, stat);
    }
    return finish(session.end(), store, path, naming, stat);
  } catch (e) {
    return unreadable(path, 'ZONE_FILE_UNREADABLE', cannotRead(path, e), stat);
  } finally {
    closeSync(fd);
  }
}

/** Load every zone file of a directory (origins from the file names). */
export async function loadZoneDirectory(
  dir: string,
  options: Omit<LoadOptions, 'origin'> = {},
): Promise<LoadResult[]> {
  const out: LoadResult[] = [];
  for (const f of await zoneFilesIn(dir)) out.push(await loadZoneFile(f, options));
  return out;
}

/** Whether a path is a directory (false when it does not exist). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
