/**
 * Zone sources, one rule for `serve`, `zone check`, `dev` and reloads: a directory gives its
 * regular files named `<origin>.zone`, `<origin>.db` or `db.<origin>` (sorted); a file named on its
 * own is read whatever its name. The origin is the explicit one, else the file name's, else the
 * file's first `$ORIGIN`, else its SOA owner.
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { soaSerialOf } from '../../dns/core/rr/soa.ts';

/** A configured zone source: a file or a directory, with an explicit origin for a file. */
export interface ZoneSourceSpec {
  readonly path: string;
  readonly origin?: string;
}

/** One zone file to load, with the origin given for it from outside (if any). */
export interface ZoneFileSpec {
  readonly file: string;
  readonly origin?: string;
}

/** The file-name patterns of zone files in a directory, for messages. */
export const ZONE_FILE_PATTERNS = '*.zone, *.db, db.*';

export type FileNameOrigin =
  | { readonly origin: string }
  /** The name has a zone-file pattern, but its stem is not a domain name. */
  | { readonly unusable: string }
  | undefined;

const LABEL = /^[A-Za-z0-9_-]{1,63}$/;

/** The stem of a zone-file name (`<stem>.zone`, `<stem>.db`, `db.<stem>`), if it has one. */
function stemOf(name: string): string | undefined {
  const m = /^(.+)\.(zone|db)$/i.exec(name) ?? /^db\.(.+)$/i.exec(name);
  return m ? m[1]! : undefined;
}

/**
 * The origin a file name gives (`example.com.zone`, `.db`, `db.example.com`; `..zone` the root). A
 * stem that is not a plain domain name gives `unusable`: `@.zone` must not become the zone `\064.`.
 */
export function fileNameOrigin(path: string): FileNameOrigin {
  const stem = stemOf(basename(path));
  if (stem === undefined) return undefined;
  if (stem === '.') return { origin: '.' };
  const bare = stem.endsWith('.') ? stem.slice(0, -1) : stem;
  if (bare.length === 0 || bare.length > 253 || !bare.split('.').every((l) => LABEL.test(l)))
    return { unusable: stem };
  return { origin: `${bare}.` };
}

/** The origin a file name implies, when it gives one (see fileNameOrigin). */
export function inferOriginFromFileName(path: string): string | undefined {
  const r = fileNameOrigin(path);
  return r && 'origin' in r ? r.origin : undefined;
}

/** Whether a directory entry of this name is a zone file by its name. */
export function isZoneFileName(name: string): boolean {
  return stemOf(name) !== undefined;
}

/** Zone files in a directory, sorted; a FIFO or device of such a name is listed, so loading it is refused. */
export async function zoneFilesIn(dir: string): Promise<string[]> {
  // Types come with the listing: only a link (or an entry of unknown type) is looked at.
  const entries = await readdir(dir, { withFileTypes: true });
  const files: string[] = [];
  // The folder's path made once (an entry's name holds no separator).
  const prefix = join(dir, '_').slice(0, -1);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!isZoneFileName(e.name) || e.isDirectory()) continue;
    const full = prefix + e.name;
    if (e.isSymbolicLink() || !typeKnown(e)) {
      try {
        if ((await stat(full)).isDirectory()) continue;
      } catch {
        continue; // removed meanwhile, or a dangling link
      }
    }
    files.push(full);
  }
  return files;
}

/** Whether a directory entry's type was told by the listing (DT_UNKNOWN on some file systems). */
function typeKnown(e: Dirent): boolean {
  return (
    e.isFile() ||
    e.isFIFO() ||
    e.isSocket() ||
    e.isCharacterDevice() ||
    e.isBlockDevice() ||
    e.isDirectory() ||
    e.isSymbolicLink()
  );
}

/** The zone files of a list of sources, in order (a file or a missing path kept as it is). */
export async function expandZoneSources(
  sources: readonly ZoneSourceSpec[],
  cwd: string,
): Promise<ZoneFileSpec[]> {
  const out: ZoneFileSpec[] = [];
  for (const src of sources) {
    const full = resolve(cwd, src.path);
    let dir = false;
    try {
      dir = (await stat(full)).isDirectory();
    } catch {
      // reported by the loader as unreadable
    }
    if (dir && src.origin === undefined) {
      for (const f of await zoneFilesIn(full)) out.push({ file: f });
    } else out.push(src.origin !== undefined ? { file: full, origin: src.origin } : { file: full });
  }
  return out;
}

/** A zone source on a command line: `PATH`, or `ORIGIN=PATH` (the origin ends with a dot). */
export function parseZoneSourceArg(text: string): ZoneSourceSpec {
  const m = /^([^=/\\]*\.)=(.+)$/.exec(text);
  if (m) return { path: m[2]!, origin: m[1]! };
  return { path: text };
}

/** The SOA serial of a zone, if it has a SOA. */
export function soaSerial(zone: {
  readonly soa: { readonly records: readonly { readonly rdata: Uint8Array }[] };
}): number | undefined {
  const rd = zone.soa.records[0]?.rdata;
  return rd && soaSerialOf(rd);
}
