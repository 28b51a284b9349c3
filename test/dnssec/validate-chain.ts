/**
 * A signed chain built for the validation tests, with BIND's dnssec-keygen
 * and dnssec-signzone: the anchor zone `v.test.` (NSEC) delegating to a
 * secure NSEC3 child, an unsigned child, a child whose DS is wrong, a child
 * whose DS names an algorithm nobody implements (253), an NSEC3 opt-out
 * child with an unsigned grandchild, a child signed with signatures that
 * expired, and a child whose NSEC3 takes 200 iterations (ldns-signzone); a
 * wildcard NAPTR and a DNAME in the anchor zone.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bindKeygen } from './bind-sign.ts';
import { signZoneFile } from '../../src/dnssec/sign.ts';

export interface ValidateChain {
  /** Zone files to serve (signed where signed). */
  readonly files: readonly string[];
  /** The anchor zone's KSK as a DNSKEY record line (trust-anchor.key form). */
  readonly anchor: string;
  /** The same for delv (`trust-anchors { ... };`). */
  readonly bindAnchorFile: string;
  readonly anchorFile: string;
}

const NAPTR = `NAPTR 100 10 "u" "E2U+sip" "!^.*$!sip:a@example.com!" .`;

function zoneText(origin: string, body: string): string {
  return `$ORIGIN ${origin}\n$TTL 300\n@ SOA ns hostmaster 1 3600 600 86400 300\n@ NS ns\nns A 127.0.0.1\n${body}\n`;
}

function sign(dir: string, origin: string, text: string, extra: string[] = []): string {
  const src = path.join(dir, `${origin}src`);
  writeFileSync(src, text);
  const out = path.join(dir, `${origin}zone`);
  const keyDir = path.join(dir, `keys-${origin}`);
  execFileSync(
    'dnssec-signzone',
    ['-q', '-K', keyDir, '-d', dir, '-o', origin, '-S', '-f', out, ...extra, src],
    { stdio: 'pipe' },
  );
  return out;
}

/**
 * Signed by ldns-signzone with NSEC3 of `iterations` extra iterations
 * (dnssec-signzone refuses more than 150; RFC 9276 section 3.2 lets
 * validators treat more as insecure).
 */
function signLdns(dir: string, origin: string, text: string, iterations: number): string {
  const src = path.join(dir, `${origin}src`);
  writeFileSync(src, text);
  const out = path.join(dir, `${origin}zone`);
  const keyDir = path.join(dir, `keys-${origin}`);
  const keys = readdirSync(keyDir)
    .filter((f) => f.endsWith('.key'))
    .map((f) => path.join(keyDir, f.slice(0, -4)));
  execFileSync('ldns-signzone', ['-n', '-t', String(iterations), '-f', out, src, ...keys], {
    stdio: 'pipe',
  });
  return out;
}

/** DS lines of the KSK in `keyDir` (SHA-256). */
function dsOf(keyDir: string, origin: string): string {
  const ksk = execFileSync('sh', ['-c', `grep -l 'key-signing' ${keyDir}/K${origin}*.key`], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')[0]!;
  return execFileSync('dnssec-dsfromkey', ['-2', ksk], { encoding: 'utf8' }).trim();
}

/** Signed by lexroute's signer with signatures valid in January 2020 only (expired now). */
async function signExpired(dir: string, origin: string, text: string): Promise<string> {
  const src = path.join(dir, `${origin}src`);
  writeFileSync(src, text);
  const out = path.join(dir, `${origin}zone`);
  await signZoneFile(src, {
    keysDir: path.join(dir, `keys-${origin}`),
    out,
    origin,
    nsec3: false,
    optOut: false,
    now: Date.UTC(2020, 0, 1) / 1000,
    validityDays: 30,
    threads: 1,
  });
  return out;
}

function write(dir: string, origin: string, text: string): string {
  const f = path.join(dir, `${origin}zone`);
  writeFileSync(f, text);
  return f;
}

/** Build the chain in `dir`. */
export async function buildValidateChain(dir: string): Promise<ValidateChain> {
  const files: string[] = [];
  const nsec3 = ['-3', '-', '-H', '0'];
  const children: [string, string[]][] = [
    ['sec.v.test.', nsec3],
    ['bad.v.test.', []],
    ['alg.v.test.', []],
    ['oo.v.test.', [...nsec3, '-A']],
    ['exp.v.test.', []],
    ['it.v.test.', []],
  ];
  const ds: string[] = [];
  for (const [origin, args] of children) {
    bindKeygen(origin, path.join(dir, `keys-${origin}`));
    const extra =
      origin === 'oo.v.test.'
        ? 'un NS ns.un\nns.un A 127.0.0.1\nlate NAPTR 1 1 "u" "x" "!^.*$!http://x/!" .\n'
        : '';
    const text = zoneText(origin, `naptr ${NAPTR}\nwww A 192.0.2.7\n${extra}`);
    files.push(
      origin === 'exp.v.test.'
        ? await signExpired(dir, origin, text)
        : origin === 'it.v.test.'
          ? signLdns(dir, origin, text, 200)
          : sign(dir, origin, text, args),
    );
    let line = dsOf(path.join(dir, `keys-${origin}`), origin);
    if (origin === 'bad.v.test.') {
      // The DS of another key: no DNSKEY of the child matches it.
      const other = path.join(dir, 'keys-other');
      bindKeygen('bad.v.test.', other);
      line = dsOf(other, 'bad.v.test.');
    }
    if (origin === 'alg.v.test.') line = line.replace(/(DS \d+ )\d+/, '$1253');
    ds.push(line);
  }
  files.push(write(dir, 'ins.v.test.', zoneText('ins.v.test.', `naptr ${NAPTR}\n`)));
  files.push(write(dir, 'un.oo.v.test.', zoneText('un.oo.v.test.', `naptr ${NAPTR}\n`)));
  const delegations = ['sec', 'ins', 'bad', 'alg', 'oo', 'exp', 'it']
    .map((c) => `${c} NS ns.${c}\nns.${c} A 127.0.0.1`)
    .join('\n');
  const top = 'v.test.';
  const anchor = bindKeygen(top, path.join(dir, `keys-${top}`));
  const body = [
    `naptr ${NAPTR}`,
    'www A 192.0.2.1',
    `*.wild ${NAPTR}`,
    'dn DNAME sec.v.test.',
    delegations,
    ...ds,
  ].join('\n');
  files.push(sign(dir, top, zoneText(top, body)));
  const [owner, , , flags, proto, alg, ...key] = anchor.split(/\s+/);
  const bindAnchorFile = path.join(dir, 'anchor.conf');
  writeFileSync(
    bindAnchorFile,
    `trust-anchors { "${owner}" static-key ${flags} ${proto} ${alg} "${key.join('')}"; };\n`,
  );
  const anchorFile = path.join(dir, 'trust-anchor.key');
  writeFileSync(anchorFile, `${owner} IN DNSKEY ${flags} ${proto} ${alg} ${key.join('')}\n`);
  return { files, anchor: readFileSync(anchorFile, 'utf8'), bindAnchorFile, anchorFile };
}
