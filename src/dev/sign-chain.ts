/**
 * `lexroute dev --dnssec`: the sample chain signed at start, a fresh
 * ECDSAP256SHA256 key per zone, children first so each parent carries their
 * DS (RFC 4035 section 4.4, RFC 4509); the root's DNSKEY is the anchor.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dnskeyRdata } from '../dnssec/core/records.ts';
import { keyToWire, nameKey } from '../dns/core/wire/name.ts';
import { generateKey, type LoadedKey } from '../dnssec/keys.ts';
import { signZoneFile } from '../dnssec/sign.ts';

export interface SignedChain {
  /** Signed zone file per origin. */
  readonly files: ReadonlyMap<string, string>;
  /** The root zone's DNSKEY record (presentation form): the trust anchor. */
  readonly anchor: string;
  /** Files beside the catalogue: the anchor as a DNSKEY record, and for BIND/delv. */
  readonly anchorFile: string;
  readonly bindAnchorFile: string;
}

function labels(origin: string): number {
  return origin === '.' ? 0 : origin.split('.').length - 1;
}

/** The served zone that is the closest proper ancestor of `origin`, if any. */
function parentOf(origin: string, origins: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const o of origins) {
    if (o === origin) continue;
    const under = o === '.' || origin.endsWith(`.${o}`);
    if (under && (best === undefined || labels(o) > labels(best))) best = o;
  }
  return best;
}

/** A DS record (digest type 2, SHA-256) for a child's key (RFC 4509 section 2.1). */
export function dsRecord(origin: string, key: LoadedKey, ttl = 3600): string {
  const owner = keyToWire(nameKey(origin));
  const rdata = dnskeyRdata(key.flags, key.algorithm, key.publicKey);
  const digest = createHash('sha256').update(owner).update(rdata).digest('hex').toUpperCase();
  return `${origin} ${ttl} IN DS ${key.tag} ${key.algorithm} 2 ${digest}`;
}

/** Sign every zone of `zoneFiles` (origin -> file) into `dir`, children before parents. */
export async function signChain(
  zoneFiles: ReadonlyMap<string, string>,
  dir: string,
): Promise<SignedChain> {
  const keysDir = path.join(dir, 'keys');
  const signedDir = path.join(dir, 'signed');
  await mkdir(keysDir, { recursive: true });
  await mkdir(signedDir, { recursive: true });
  const origins = [...zoneFiles.keys()];
  const keys = new Map<string, LoadedKey>();
  for (const o of origins) keys.set(o, await generateKey(keysDir, o, 13, true));
  const ordered = [...origins].sort((a, b) => labels(b) - labels(a));
  const files = new Map<string, string>();
  for (const origin of ordered) {
    const children = origins.filter((c) => parentOf(c, origins) === origin);
    const ds = children.map((c) => dsRecord(c, keys.get(c)!));
    const text = await readFile(zoneFiles.get(origin)!, 'utf8');
    const name = origin === '.' ? 'root' : origin.slice(0, -1);
    const source = path.join(signedDir, `${name}.unsigned`);
    await writeFile(source, `${text.replace(/\n?$/, '\n')}${ds.map((d) => `${d}\n`).join('')}`);
    const out = path.join(signedDir, `${name}.zone`);
    await signZoneFile(source, { keysDir, out, origin, nsec3: false, optOut: false });
    files.set(origin, out);
  }
  const top = ordered[ordered.length - 1]!;
  const k = keys.get(top)!;
  const b64 = Buffer.from(k.publicKey).toString('base64');
  const anchor = `${top} IN DNSKEY ${k.flags} 3 ${k.algorithm} ${b64}`;
  const anchorFile = path.join(dir, 'trust-anchor.key');
  const bindAnchorFile = path.join(dir, 'trust-anchors.conf');
  await writeFile(anchorFile, `${anchor}\n`);
  await writeFile(
    bindAnchorFile,
    `trust-anchors {\n  "${top}" static-key ${k.flags} 3 ${k.algorithm} "${b64}";\n};\n`,
  );
  return { files, anchor, anchorFile, bindAnchorFile };
}
