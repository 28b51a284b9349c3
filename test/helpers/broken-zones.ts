import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { generateKey } from '../../src/dnssec/keys.ts';
import { signZoneFile } from '../../src/dnssec/sign.ts';

/**
 * One broken zone file per error code of the zone path (`zone check` and
 * `serve` alike): a good zone `t.example.` (whose `v TXT` says which version
 * it is) with one mistake. `test/server/zone-path.test.ts` serves the good
 * version, writes each broken one over it, reloads and queries.
 */

/** The folder of the served zones: `t.example.zone`, `@.zone` and the files they include. */
export const ZONE_FILE = 't.example.zone';

/** The good zone's records, relative to its origin; `version` goes into `v TXT`. */
export function zoneBody(version: string): string {
  return [
    '$TTL 300',
    '@ SOA ns hostmaster 1 3600 600 86400 300',
    '@ NS ns',
    'ns A 192.0.2.1',
    `v TXT "${version}"`,
    '',
  ].join('\n');
}

/** The good zone file of `t.example.`. */
export function goodZone(version: string): string {
  return `$ORIGIN t.example.\n${zoneBody(version)}`;
}

export interface BrokenZone {
  /** The file written (default ZONE_FILE); its good version is served first. */
  readonly file?: string;
  /** The broken text (default: the good zone at version "v2" with `add` after it). */
  readonly text?: string;
  /** Lines added after the good zone. */
  readonly add?: string;
  /** The file becomes a FIFO instead. */
  readonly fifo?: true;
}

const NAPTR = (flags: string, services: string, regexp: string, replacement = '.') =>
  `n NAPTR 100 10 "${flags}" "${services}" "${regexp}" ${replacement}`;

const long = (n: number, c = 'a') => c.repeat(n);

/** Most octets of one zone and longest entry, as the serve of the test is configured. */
export const LIMITS = { maxBytes: 400_000, maxEntryChars: 200_000 } as const;

/**
 * Error codes of the zone path, each with a file that gives it. The
 * NAPTR_SUBST_* and NAPTR_ERE_* codes are the REGEXP errors the lint reports
 * under the NAPTR_ prefix.
 */
export const BROKEN_ZONES: Readonly<Record<string, BrokenZone>> = {
  // Lexer and parser
  ZONE_UNTERMINATED_QUOTE: { add: 'q TXT "abc' },
  ZONE_UNCLOSED_PAREN: { add: 'q TXT ( "a"' },
  ZONE_UNBALANCED_PAREN: { add: 'q A 192.0.2.2 )' },
  ZONE_ENTRY_TOO_LONG: { add: `q TXT ${long(LIMITS.maxEntryChars + 70_000)}\nr TXT "b"` },
  ZONE_BAD_DIRECTIVE: { add: '$TTL' },
  ZONE_UNKNOWN_DIRECTIVE: { add: '$FOO bar' },
  ZONE_UNSUPPORTED_DIRECTIVE: { add: '$GENERATE 1-5 h$ A 10.0.0.$' },
  ZONE_INCLUDE_DEPTH: { add: '$INCLUDE loop.inc' },
  ZONE_INCLUDE_NOT_FOUND: { add: '$INCLUDE missing.inc' },
  ZONE_INCLUDE_OUTSIDE: { add: '$INCLUDE /etc/hostname' },
  ZONE_NO_ORIGIN: { file: '@.zone', text: zoneBody('v2') },
  ZONE_NO_OWNER: { text: `$ORIGIN t.example.\n$TTL 300\n  A 192.0.2.1\n${zoneBody('v2')}` },
  ZONE_BAD_NAME: { add: 'q CNAME "x.example."' },
  ZONE_NO_TTL: { text: `$ORIGIN t.example.\nq A 192.0.2.1\n${zoneBody('v2')}` },
  ZONE_BAD_TTL: { add: 'q 1x A 192.0.2.1' },
  ZONE_MISSING_TYPE: { add: 'q 300 IN' },
  ZONE_UNKNOWN_TYPE: { add: 'q BOGUS 1' },
  ZONE_BAD_TYPE: { add: 'q TYPE70000 \\# 0' },
  ZONE_META_TYPE: { add: 'q ANY 1.2.3.4' },
  ZONE_CLASS_MISMATCH: { add: 'q CH A 192.0.2.1' },
  // Domain names
  ZONE_EMPTY_LABEL: { add: 'a..b A 192.0.2.1' },
  ZONE_LABEL_TOO_LONG: { add: `${long(64)} A 192.0.2.1` },
  ZONE_NAME_TOO_LONG: { add: `${Array(5).fill(long(60)).join('.')} A 192.0.2.1` },
  ZONE_BAD_ESCAPE: { add: 'q TXT "\\256"' },
  ZONE_NON_ASCII_NAME: { add: 's\u00e3o A 192.0.2.1' },
  ZONE_BAD_NAME_CHAR: { add: 'a\u0001b A 192.0.2.1' },
  // RDATA
  ZONE_MISSING_RDATA: { add: 'q MX 10' },
  ZONE_EXTRA_RDATA: { add: 'q A 192.0.2.1 192.0.2.2' },
  ZONE_BAD_RDATA: { add: '@ CAA 0 is-sue "x"' },
  ZONE_RDATA_TOO_LONG: {
    add: `q TXT ${Array(260)
      .fill(`"${long(255)}"`)
      .join(' ')}`,
  },
  ZONE_STRING_TOO_LONG: { add: `q TXT "${long(256)}"` },
  ZONE_BAD_NUMBER: { add: 'q MX 70000 ns' },
  ZONE_BAD_IPV4: { add: 'q A 1.2.3' },
  ZONE_BAD_IPV6: { add: 'q AAAA 1::2::3' },
  ZONE_BAD_HEX: { add: 'q TYPE9 \\# 2 zz' },
  ZONE_BAD_BASE32: { add: 'q NSEC3 1 0 0 - zzzz A' },
  ZONE_BAD_BASE64: { add: 'q DNSKEY 256 3 13 !!!!' },
  ZONE_BAD_TIME: { add: 'q RRSIG A 13 3 300 2026x 20260101000000 1 t.example. AAAA' },
  ZONE_BAD_DIGEST: { add: '@ ZONEMD 1 1 1 00' },
  ZONE_BAD_LOC: { add: 'q LOC 90 0 0.001 N 1 E 0' },
  ZONE_BAD_EUI: { add: 'q EUI48 01-23-45-567-89-ab' },
  ZONE_BAD_GENERIC_RDATA: { add: 'q TYPE99 \\# 3 0a00' },
  ZONE_UNSUPPORTED_TYPE_SYNTAX: { add: 'q SINK 1 0 0 AAAA' },
  ZONE_SVCB_BAD_PARAM: { add: 'q HTTPS 1 . "alpn=h2"' },
  ZONE_SVCB_UNKNOWN_KEY: { add: 'q SVCB 1 . unknown=wha' },
  ZONE_SVCB_DUPLICATE_KEY: { add: 'q SVCB 1 . port=1 alpn=h2 port=2' },
  ZONE_SVCB_BAD_VALUE: { add: 'q SVCB 1 . port=65536' },
  ZONE_SVCB_MANDATORY: { add: 'q SVCB 1 . mandatory=alpn,port port=1' },
  ZONE_SVCB_INCONSISTENT: { add: 'q HTTPS 1 . no-default-alpn' },
  // Zone content
  ZONE_NO_SOA: { text: goodZone('v2').replace(/^@ SOA .*\n/m, '') },
  ZONE_MULTIPLE_SOA: { add: '@ SOA ns hostmaster 2 3600 600 86400 300' },
  ZONE_SOA_NOT_AT_APEX: { add: 'q SOA ns hostmaster 1 3600 600 86400 300' },
  ZONE_NO_APEX_NS: { text: goodZone('v2').replace(/^@ NS .*\n/m, '') },
  ZONE_DS_AT_APEX: { add: `@ DS 12345 13 2 ${long(64, 'a')}` },
  ZONE_CNAME_AND_OTHER: { add: 'ns CNAME v' },
  ZONE_MULTIPLE_CNAME: { add: 'c CNAME v\nc CNAME ns' },
  ZONE_MULTIPLE_DNAME: { add: 'd DNAME a.example.\nd DNAME b.example.' },
  ZONE_NS_TARGET_CNAME: { add: '@ NS alias\nalias CNAME ns' },
  // Files on disk
  ZONE_FILE_TOO_LARGE: {
    add: Array(LIMITS.maxBytes / 50)
      .fill(`; ${long(47)}`)
      .join('\n'),
  },
  ZONE_NOT_REGULAR_FILE: { fifo: true },
  ZONE_ORIGIN_MISMATCH: { text: `$ORIGIN other.example.\n${zoneBody('v2')}` },
  // NAPTR lint and "; expect" directives
  NAPTR_NO_REWRITE: { add: NAPTR('', '', '') },
  NAPTR_BOTH_FIELDS: { add: NAPTR('', '', '!^x!y!', 'next.example.') },
  NAPTR_FLAG_MULTIPLE: { add: NAPTR('SU', 'E2U+http', '', 'next.example.') },
  NAPTR_FLAG_INVALID: { add: NAPTR('!', '', '', 'next.example.') },
  NAPTR_SERVICES_SYNTAX: { add: NAPTR('', '@@@', '', 'next.example.') },
  NAPTR_U_WITHOUT_REGEXP: { add: NAPTR('U', 'E2U+http', '', 'next.example.') },
  NAPTR_U_NOT_URI: { add: NAPTR('U', 'E2U+http', '!^.*$!nouri!') },
  NAPTR_SUBST_NUL: { add: NAPTR('', '', '!^x\\000!y!') },
  NAPTR_SUBST_BAD_DELIMITER: { add: NAPTR('', '', '1^x1y1') },
  NAPTR_SUBST_DELIMITER_COUNT: { add: NAPTR('', '', '!^x!y') },
  NAPTR_SUBST_BAD_FLAG: { add: NAPTR('', '', '!^x!y!g') },
  NAPTR_SUBST_BACKREF_ZERO: { add: NAPTR('', '', '!^(x)$!\\\\0!') },
  NAPTR_SUBST_BACKREF_RANGE: { add: NAPTR('', '', '!^x$!\\\\1!') },
  NAPTR_ERE_EMPTY: { add: NAPTR('', '', '!!y!') },
  NAPTR_ERE_SYNTAX: { add: NAPTR('', '', '!^(x!y!') },
  NAPTR_ERE_UNSUPPORTED: { add: NAPTR('', '', '!^\\\\d!y!') },
  NAPTR_ERE_INTERVAL_LIMIT: { add: NAPTR('', '', '!^x{300}!y!') },
  NAPTR_EXPECT_SYNTAX: { add: `${NAPTR('', '', '!^x!y!')}\n; expect nonsense` },
  NAPTR_EXPECT_NO_OWNER: { text: `; expect urn:lex:it -> fail\n${goodZone('v2')}` },
  NAPTR_EXPECT_NO_NAPTR: { add: '; expect urn:lex:it -> fail' },
  NAPTR_EXPECT_MISMATCH: {
    add: `${NAPTR('u', 'E2U+http', '!^urn:lex:it:.*$!http://a.example/!')}\n; expect urn:lex:it:x -> U http://b.example/`,
  },
};

/**
 * Codes the zone model lists without "warning:" that the checks report as
 * warnings (served, refused with strict), and warnings proper: lines added to
 * the good zone.
 */
export const WARNED_ZONES: Readonly<Record<string, string>> = {
  ZONE_MISSING_GLUE: 'sub NS ns.sub',
  ZONE_TARGET_CNAME: '@ MX 10 alias\nalias CNAME ns',
  ZONE_TARGET_NO_ADDRESS: '@ MX 10 noaddr\nnoaddr TXT "x"',
  ZONE_DUPLICATE_RECORD: 'ns A 192.0.2.1',
  NAPTR_UNANCHORED: NAPTR('', '', '!x!y!'),
  NAPTR_FLAG_UNKNOWN: NAPTR('Z', '', '', 'next.example.'),
};

const DAY = 86400;

/** Lines of a signed text changed by `edit`, which must change something. */
function edited(text: string, edit: (lines: string[]) => string[]): string {
  const after = edit(text.split('\n')).join('\n');
  if (after === text) throw new Error('the edit changed nothing');
  return after;
}

/** The first line matching `re`, changed by `f`. */
function changeLine(re: RegExp, f: (line: string) => string) {
  return (lines: string[]) => {
    const i = lines.findIndex((l) => re.test(l));
    if (i < 0) throw new Error(`no line matches ${String(re)}`);
    lines[i] = f(lines[i]!);
    return lines;
  };
}

const drop = (re: RegExp) => (lines: string[]) => lines.filter((l) => !re.test(l));

/**
 * The DNSSEC findings (as dnssec-verify): the good zone at "v2" with a
 * delegation, signed by \`lexroute zone sign\` (NSEC and NSEC3, fresh key in
 * \`dir\`), then broken line by line.
 */
export async function brokenSignedZones(dir: string): Promise<Record<string, BrokenZone>> {
  const src = path.join(dir, 'src.example.zone');
  writeFileSync(src, `${goodZone('v2')}www A 192.0.2.5\nsub NS ns.sub\nns.sub A 192.0.2.6\n`);
  await generateKey(dir, 't.example.', 13, true);
  const sign = async (name: string, o: { nsec3?: boolean; now?: number } = {}) => {
    const out = path.join(dir, name);
    await signZoneFile(src, {
      keysDir: dir,
      out,
      origin: 't.example.',
      threads: 1,
      nsec3: o.nsec3 === true,
      optOut: false,
      ...(o.now !== undefined ? { now: o.now } : {}),
    });
    return readFileSync(out, 'utf8');
  };
  const now = Math.floor(Date.now() / 1000);
  const nsec = await sign('nsec.signed');
  const nsec3 = await sign('nsec3.signed', { nsec3: true });
  const text = (t: string, edit: (lines: string[]) => string[]) => ({ text: edited(t, edit) });
  const wwwSig = /^www\.t\.example\. \d+ IN RRSIG A /;
  const nsec3Line = /^[0-9a-v]{32}\.t\.example\. \d+ IN NSEC3 /;
  return {
    ZONE_RRSIG_MISSING: text(nsec, drop(wwwSig)),
    ZONE_RRSIG_BAD: text(
      nsec,
      changeLine(wwwSig, (l) =>
        l.replace(
          / (\S)(\S+)$/,
          (_m, c: string, rest: string) => ` ${c === 'A' ? 'B' : 'A'}${rest}`,
        ),
      ),
    ),
    ZONE_RRSIG_EXPIRED: { text: await sign('expired.signed', { now: now - 40 * DAY }) },
    ZONE_RRSIG_NOT_YET_VALID: { text: await sign('future.signed', { now: now + 2 * DAY }) },
    ZONE_RRSIG_NO_KEY: text(
      nsec,
      changeLine(wwwSig, (l) => l.replace(/ (\d+) t\.example\. /, ' 1 t.example. ')),
    ),
    ZONE_DENIAL_MISSING: text(nsec, drop(/ IN NSEC /)),
    ZONE_NSEC_MISSING: text(nsec, drop(/^www\.t\.example\. \d+ IN NSEC /)),
    ZONE_NSEC_EXTRA: text(nsec, (l) => [...l, 'ns.sub.t.example. 300 IN NSEC t.example. A']),
    ZONE_NSEC_MULTIPLE: text(nsec, (l) => [...l, 'www.t.example. 300 IN NSEC t.example. A NSEC']),
    ZONE_NSEC_CHAIN_BROKEN: text(
      nsec,
      changeLine(/^v\.t\.example\. \d+ IN NSEC /, (l) => l.replace('NSEC www.', 'NSEC zzz.')),
    ),
    ZONE_NSEC_BITMAP: text(
      nsec,
      changeLine(/^www\.t\.example\. \d+ IN NSEC /, (l) => l.replace(' A RRSIG', ' A AAAA RRSIG')),
    ),
    ZONE_NSEC3PARAM_MISSING: text(nsec3, drop(/ IN NSEC3PARAM /)),
    ZONE_NSEC3_HASH: text(
      nsec3,
      changeLine(/ IN NSEC3PARAM /, (l) => l.replace('NSEC3PARAM 1 0 0', 'NSEC3PARAM 2 0 0')),
    ),
    ZONE_NSEC3_PARAMS: text(
      nsec3,
      changeLine(nsec3Line, (l) => l.replace('NSEC3 1 0 0', 'NSEC3 1 0 5')),
    ),
    ZONE_NSEC3_BAD_OWNER: text(nsec3, (lines) => {
      const l = lines.find((x) => nsec3Line.test(x))!;
      return [...lines, l.replace(/^([0-9a-v]{32})\./, 'x.$1.')];
    }),
    ZONE_NSEC3_MISSING: text(nsec3, (lines) => {
      const i = lines.findIndex((x) => nsec3Line.test(x));
      return lines.filter((_x, j) => j !== i);
    }),
    ZONE_NSEC3_EXTRA: text(nsec3, (lines) => {
      const l = lines.find((x) => nsec3Line.test(x))!;
      return [...lines, l.replace(/^[0-9a-v]{32}\./, `${'0'.repeat(32)}.`)];
    }),
    ZONE_NSEC3_MULTIPLE: text(nsec3, (lines) => {
      const l = lines.find((x) => nsec3Line.test(x))!;
      return [
        ...lines,
        l
          .replace(/ RRSIG$/, ' AAAA RRSIG')
          .replace(/ NSEC3 1 0 0 - (\S+) /, ' NSEC3 1 0 0 - $1 TXT '),
      ];
    }),
    ZONE_NSEC3_CHAIN_BROKEN: text(
      nsec3,
      changeLine(nsec3Line, (l) => l.replace(/ - [0-9A-V]{32} /i, ` - ${'1'.repeat(32)} `)),
    ),
    ZONE_NSEC3_BITMAP: text(
      nsec3,
      changeLine(nsec3Line, (l) => l.replace(/ - (\S+) /, ' - $1 AAAA ')),
    ),
  };
}
