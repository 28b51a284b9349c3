/**
 * Reading zone files and directories from disk: the one load path shared by
 * the server and `lexroute zone check`.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { readdir, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { basename, join } from 'node:path';
import { buildStoreZone } from '../core/zone/build.ts';
import type { ResourceRecord, Zone, ZoneDiagnostic } from '../core/zone/model.ts';
import { parseZoneChunks, type ExpectDirective, type ParseResult } from '../core/zone/parser.ts';
import { ZoneStore } from '../core/zone/store.ts';
import { recordViews } from '../core/zone/views.ts';

export interface LoadOptions {
  /** Zone apex; inferred from the file when absent (see inferOriginFromFileName). */
  readonly origin?: string;
  /** Allow `$INCLUDE` (default true: files are read relative to the including file). */
  readonly allowInclude?: boolean;
  readonly maxIncludeDepth?: number;
  readonly defaultTtl?: number;
}

export interface LoadResult {
  /** The zone, when the file has no errors. */
  readonly zone?: Zone;
  readonly diagnostics: ZoneDiagnostic[];
  readonly file: string;
  readonly origin?: string;
  /**
   * The parsed records in file order (also when the zone did not build), for
   * linting; out-of-zone records (ignored) are left out. Made from the zone's
   * columns on first access: a server that only needs `zone` never makes them.
   */
  readonly records: readonly ResourceRecord[];
  readonly expects: readonly ExpectDirective[];
}

/**
 * The origin a file name implies: `<origin>.zone`, `<origin>.db`, or
 * `db.<origin>`. `example.com.zone` -> `example.com.`; `root.zone` is not
 * special (`root.`).
 */
export function inferOriginFromFileName(path: string): string | undefined {
  const name = basename(path);
  let m = /^(.+)\.(zone|db)$/i.exec(name);
  if (m) return m[1]!.replace(/\.$/, '') + '.';
  m = /^db\.(.+)$/i.exec(name);
  if (m) return m[1]!.replace(/\.$/, '') + '.';
  return undefined;
}

function includeReader(allow: boolean | undefined) {
  if (allow === false) return undefined;
  return (path: string): string | undefined => {
    if (statSync(path).isDirectory()) throw new Error(`${path} is a directory`);
    return readFileSync(path, 'utf8');
  };
}

/** Parse and build one zone from text (the load path without the disk). */
export function loadZoneText(text: string, file: string, options: LoadOptions = {}): LoadResult {
  return loadZoneChunks([text], file, options);
}

function parseOptions(file: string, options: LoadOptions) {
  const explicit = options.origin ?? inferOriginFromFileName(file);
  const include = includeReader(options.allowInclude);
  return {
    file,
    ...(explicit !== undefined ? { origin: explicit } : {}),
    ...(include ? { includeSource: include } : {}),
    ...(options.maxIncludeDepth !== undefined ? { maxIncludeDepth: options.maxIncludeDepth } : {}),
    ...(options.defaultTtl !== undefined ? { defaultTtl: options.defaultTtl } : {}),
  };
}

function loadZoneChunks(chunks: Iterable<string>, file: string, options: LoadOptions): LoadResult {
  // Records stream from the parser into the store's columns: no list of
  // record objects is ever made on this path.
  const store = new ZoneStore();
  const parsed = parseZoneChunks(chunks, { ...parseOptions(file, options), sink: store });
  return finish(parsed, store, file);
}

/** A LoadResult whose `records` are made from the store on first access. */
function result(
  store: ZoneStore,
  fields: Omit<LoadResult, 'records'>,
  outOfZone: boolean,
): LoadResult {
  let records: ResourceRecord[] | undefined;
  return {
    ...fields,
    get records(): readonly ResourceRecord[] {
      return (records ??= recordViews(store, outOfZone));
    },
  };
}

function finish(parsed: ParseResult, store: ZoneStore, file: string): LoadResult {
  const diagnostics = [...parsed.diagnostics];
  const origin = parsed.origin;
  if (origin === undefined) {
    diagnostics.push({
      code: 'ZONE_NO_ORIGIN',
      message:
        'cannot tell the zone origin: pass --origin, name the file <origin>.zone, or start it with $ORIGIN',
      severity: 'error',
      position: { file, line: 1, column: 1 },
    });
    return result(store, { diagnostics, file, expects: parsed.expects }, true);
  }
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
    },
    false,
  );
}

/** Size of the blocks a zone file is read in: the whole text is never held at once. */
const BLOCK = 1 << 16;

/**
 * The file's text block by block (UTF-8; an ASCII block is decoded as
 * Latin-1, which is the same text and the cheapest string V8 has).
 */
function* fileBlocks(fd: number): Generator<string> {
  const buf = Buffer.allocUnsafe(BLOCK);
  const decoder = new StringDecoder('utf8');
  let pendingUtf8 = false;
  for (;;) {
    const n = readSync(fd, buf, 0, BLOCK, null);
    if (n === 0) break;
    const block = buf.subarray(0, n);
    if (!pendingUtf8 && isAscii(block)) yield block.toString('latin1');
    else {
      const text = decoder.write(block);
      // A multi-byte character cut by the block end stays in the decoder.
      pendingUtf8 = true;
      if (text !== '') yield text;
    }
  }
  const tail = decoder.end();
  if (tail !== '') yield tail;
}

/** Read, parse, build and validate one zone file (the server's load path). */
export async function loadZoneFile(path: string, options: LoadOptions = {}): Promise<LoadResult> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
    if (statSync(path).isDirectory()) {
      closeSync(fd);
      throw new Error(`${path} is a directory`);
    }
  } catch (e) {
    return {
      diagnostics: [
        {
          code: 'ZONE_FILE_UNREADABLE',
          message: `cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`,
          severity: 'error',
          position: { file: path, line: 0, column: 0 },
        },
      ],
      file: path,
      records: [],
      expects: [],
    };
  }
  try {
    return loadZoneChunks(fileBlocks(fd), path, options);
  } finally {
    closeSync(fd);
  }
}

/** Zone files in a directory: `*.zone`, `*.db` and `db.*` (sorted by name). */
export async function zoneFilesIn(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  const files: string[] = [];
  for (const n of names.sort()) {
    if (!inferOriginFromFileName(n)) continue;
    const full = join(dir, n);
    if ((await stat(full)).isFile()) files.push(full);
  }
  return files;
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

/** Synchronous variant for tools (directory listing). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
