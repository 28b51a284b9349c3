/**
 * Signing with BIND's tools for the DNSSEC tests: `dnssec-keygen` makes a
 * KSK and a ZSK in a temp folder, `dnssec-signzone` signs a zone file with
 * NSEC, NSEC3 (RFC 9276: no salt, 0 iterations) or NSEC3 with opt-out.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type Denial = 'nsec' | 'nsec3' | 'nsec3-optout';

export interface SignedZone {
  readonly origin: string;
  readonly file: string;
  /** The KSK's DNSKEY record (presentation form), for trust anchors and DS. */
  readonly ksk: string;
  readonly keyDir: string;
}

/** Make a KSK and a ZSK for `origin` in `keyDir` (algorithm by BIND name). */
export function bindKeygen(origin: string, keyDir: string, alg = 'ECDSAP256SHA256'): string {
  mkdirSync(keyDir, { recursive: true });
  const ksk = execFileSync(
    'dnssec-keygen',
    ['-q', '-K', keyDir, '-a', alg, '-f', 'KSK', '-n', 'ZONE', origin],
    { encoding: 'utf8' },
  ).trim();
  execFileSync('dnssec-keygen', ['-q', '-K', keyDir, '-a', alg, '-n', 'ZONE', origin]);
  return readFileSync(path.join(keyDir, `${ksk}.key`), 'utf8')
    .split('\n')
    .filter((l) => l && !l.startsWith(';'))
    .join('\n');
}

/** Sign `file` for `origin` into `outDir`; keys are made in `outDir/keys-<origin>` unless present. */
export function bindSign(
  file: string,
  origin: string,
  outDir: string,
  denial: Denial,
  alg = 'ECDSAP256SHA256',
): SignedZone {
  const keyDir = path.join(outDir, `keys-${origin}`);
  const ksk = bindKeygen(origin, keyDir, alg);
  // `<origin>.zone`: the file name gives the origin to the loader.
  const out = path.join(outDir, `${origin}zone`);
  const args = ['-q', '-K', keyDir, '-d', outDir, '-o', origin, '-S', '-f', out];
  if (denial !== 'nsec') args.push('-3', '-', '-H', '0');
  if (denial === 'nsec3-optout') args.push('-A');
  execFileSync('dnssec-signzone', [...args, file], { stdio: 'pipe' });
  return { origin, file: out, ksk, keyDir };
}

/** Break the signature of `owner`'s RRSIG over `covered` in a signed zone file. */
export function corrupt(file: string, owner: string, covered: string): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  let current = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^\S/.test(l)) current = l.split(/\s+/)[0]!;
    const m = /^(\S*\s+\d+\s+RRSIG\s+)(\S+)/.exec(l);
    if (current === owner && m && m[2] === covered) {
      // The base64 signature starts two lines down (dnssec-signzone wraps in parentheses).
      const j = i + 2;
      lines[j] = lines[j]!.replace(/[A-Za-z0-9]/, (c) => (c === 'A' ? 'B' : 'A'));
      writeFileSync(file, lines.join('\n'));
      return;
    }
  }
  throw new Error(`no RRSIG ${covered} at ${owner}`);
}
