/**
 * The client's own DNSSEC validation against delv's, case by case, on a
 * signed chain built for the test (test/dnssec/validate-chain.ts) and
 * served by lexroute's server on 127.0.0.1: NSEC and NSEC3, an opt-out
 * span, a wildcard NAPTR, a DNAME, an unsigned delegation, expired
 * signatures, a wrong DS, a DS of an unknown algorithm, a corrupted
 * signature, NSEC3 of 200 iterations (RFC 9276). Each row: lexroute's verdict (stub and iterative with
 * node:crypto, stub with WebCrypto as the browser build validates) and
 * delv's, which must agree.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolOrSkip } from '../helpers/tools.ts';
import { startBogusServer, type Harness } from '../server/harness.ts';
import { corrupt } from './bind-sign.ts';
import { buildValidateChain, type ValidateChain } from './validate-chain.ts';
import { LexClient } from '../../src/client/resolve.ts';
import { webDnssecCrypto } from '../../src/dnssec/webcrypto.ts';
import { parseTrustAnchors } from '../../src/dnssec/core/validate/anchors.ts';
import type { QueryType } from '../../src/dns/core/rr/types.ts';

const delv = toolOrSkip('delv');
const signer = toolOrSkip('dnssec-signzone');
const skip = (delv.skipReason ?? signer.skipReason) !== undefined;

const tmp = mkdtempSync(path.join(os.tmpdir(), 'lexroute-validate-'));
let chain: ValidateChain;
let h: Harness;

beforeAll(async () => {
  if (skip) return;
  chain = await buildValidateChain(tmp);
  corrupt(
    chain.files.find((f) => f.endsWith('/v.test.zone'))!,
    'www.v.test.',
    'A',
  );
  // Served as filed: serve refuses a zone whose signatures are corrupted or expired.
  const bogus = (f: string) => /\/(v\.test|exp\.v\.test)\.zone$/.test(f);
  h = await startBogusServer(
    chain.files.filter(bogus),
    chain.files.filter((f) => !bogus(f)),
  );
}, 120_000);
/** The table of cases, printed at the end: lexroute's verdict (both modes) against delv's. */
const table: string[] = [];

afterAll(async () => {
  if (table.length > 0)
    console.log(
      [
        'case | lexroute stub | lexroute iterative | lexroute stub, WebCrypto | delv',
        ...table,
      ].join('\n'),
    );
  await h?.close();
  rmSync(tmp, { recursive: true, force: true });
});

type Status = 'secure' | 'insecure' | 'bogus';

/** delv's verdict: "fully validated", "unsigned answer", or a failed resolution. */
async function delvVerdict(
  qname: string,
  qtype: string,
): Promise<{ status: Status; text: string }> {
  let text: string;
  try {
    const r = await promisify(execFile)(
      delv.path!,
      [
        '@127.0.0.1',
        '-p',
        String(h.port),
        '-a',
        chain.bindAnchorFile,
        '+root=v.test.',
        qname,
        qtype,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );
    text = r.stdout + r.stderr;
  } catch (e) {
    text = String((e as { stdout?: string }).stdout) + String((e as { stderr?: string }).stderr);
  }
  const status: Status = /fully validated/.test(text)
    ? 'secure'
    : /unsigned answer/.test(text)
      ? 'insecure'
      : 'bogus';
  return { status, text };
}

function client(mode: 'stub' | 'iterative' | 'webcrypto', nsec3MaxIterations?: number): LexClient {
  const parsed = parseTrustAnchors(readFileSync(chain.anchorFile, 'utf8'), 'anchor', 0);
  if (!('anchors' in parsed)) throw new Error(parsed.problem.message);
  const server = `127.0.0.1:${h.port}`;
  return new LexClient({
    ...(mode === 'iterative' ? { root: server } : { servers: [server] }),
    validate: {
      trustAnchors: parsed.anchors,
      ...(mode === 'webcrypto' ? { crypto: webDnssecCrypto() } : {}),
      ...(nsec3MaxIterations !== undefined ? { nsec3MaxIterations } : {}),
    },
    cache: false,
  });
}

/** qname, qtype, the verdict expected of both, lexroute's code, what the case is. */
const CASES: readonly [string, QueryType, Status, string | undefined, string][] = [
  ['naptr.v.test.', 'NAPTR', 'secure', undefined, 'NSEC zone, positive'],
  ['x.wild.v.test.', 'NAPTR', 'secure', undefined, 'wildcard NAPTR expansion'],
  ['nope.v.test.', 'NAPTR', 'secure', undefined, 'NSEC NXDOMAIN'],
  ['www.v.test.', 'NAPTR', 'secure', undefined, 'NSEC NODATA'],
  ['naptr.sec.v.test.', 'NAPTR', 'secure', undefined, 'NSEC3 child, positive'],
  ['nope.sec.v.test.', 'NAPTR', 'secure', undefined, 'NSEC3 NXDOMAIN'],
  ['www.sec.v.test.', 'NAPTR', 'secure', undefined, 'NSEC3 NODATA'],
  ['naptr.dn.v.test.', 'NAPTR', 'secure', undefined, 'DNAME to the NSEC3 child'],
  ['naptr.ins.v.test.', 'NAPTR', 'insecure', 'INSECURE_NO_DS', 'unsigned delegation (NSEC, no DS)'],
  [
    'naptr.un.oo.v.test.',
    'NAPTR',
    'insecure',
    'INSECURE_OPT_OUT',
    'unsigned delegation in an NSEC3 opt-out span',
  ],
  ['late.oo.v.test.', 'NAPTR', 'secure', undefined, 'NSEC3 opt-out zone, positive'],
  [
    'naptr.alg.v.test.',
    'NAPTR',
    'insecure',
    'INSECURE_UNSUPPORTED_ALGORITHM',
    'DS of an unsupported algorithm',
  ],
  ['naptr.bad.v.test.', 'NAPTR', 'bogus', 'BOGUS_DS_MISMATCH', 'wrong DS'],
  ['naptr.exp.v.test.', 'NAPTR', 'bogus', 'BOGUS_EXPIRED', 'expired signatures'],
  ['naptr.it.v.test.', 'NAPTR', 'secure', undefined, 'NSEC3 of 200 iterations, positive'],
  [
    'nope.it.v.test.',
    'NAPTR',
    'insecure',
    'INSECURE_NSEC3_ITERATIONS',
    'NSEC3 NXDOMAIN of 200 iterations (RFC 9276)',
  ],
  ['www.v.test.', 'A', 'bogus', 'BOGUS_SIGNATURE', 'corrupted signature'],
];

describe.skipIf(skip)('validation: lexroute against delv', () => {
  it.each(CASES)(
    '%s %s: %s %s (%s)',
    async (qname, qtype, expected, code) => {
      const d = await delvVerdict(qname, qtype);
      const row: string[] = [`${qname} ${qtype}`];
      for (const mode of ['stub', 'iterative', 'webcrypto'] as const) {
        const c = client(mode);
        try {
          const r = await c.lookup(qname, qtype, undefined);
          const v = r.validation!;
          row.push(`${v.status}${'code' in v ? ` ${v.code}` : ''}`);
          expect({ mode, status: v.status, v }).toMatchObject({ mode, status: d.status });
          expect('code' in v ? v.code : undefined).toBe(code);
        } finally {
          await c.close();
        }
      }
      table.push(
        [
          ...row,
          `${d.status} (${/(fully validated|unsigned answer|resolution failed: [^\n]*)/.exec(d.text)?.[1] ?? '?'})`,
        ].join(' | '),
      );
      expect(d.status, d.text).toBe(expected);
    },
    60_000,
  );

  // RFC 9276 section 3.2: the limit is the caller's (validate.nsec3MaxIterations).
  it.each([
    [250, 'nope.it.v.test.', 'secure', undefined],
    [200, 'nope.it.v.test.', 'secure', undefined],
    [199, 'nope.it.v.test.', 'insecure', 'INSECURE_NSEC3_ITERATIONS'],
    [0, 'nope.sec.v.test.', 'secure', undefined],
  ] as const)('nsec3MaxIterations %i: %s NAPTR %s', async (limit, qname, status, code) => {
    for (const mode of ['stub', 'webcrypto'] as const) {
      const c = client(mode, limit);
      try {
        const v = (await c.lookup(qname, 'NAPTR', undefined)).validation!;
        expect({ mode, status: v.status, code: 'code' in v ? v.code : undefined }).toEqual({
          mode,
          status,
          code,
        });
      } finally {
        await c.close();
      }
    }
  });

  // Issue 32 item 3: a non-secure verdict says what it is about, not only why.
  const ABOUT: readonly [string, QueryType, object][] = [
    [
      'www.v.test.',
      'A',
      { rrset: { name: 'www.v.test.', type: 'A' }, keyTag: expect.any(Number), algorithm: 13 },
    ],
    [
      'naptr.bad.v.test.',
      'NAPTR',
      { rrset: { name: 'bad.v.test.', type: 'DNSKEY' }, keyTag: expect.any(Number), algorithm: 13 },
    ],
    ['naptr.alg.v.test.', 'NAPTR', { rrset: { name: 'alg.v.test.', type: 'DNSKEY' } }],
    [
      'nope.it.v.test.',
      'NAPTR',
      { rrset: { name: expect.stringMatching(/^[0-9a-v]{32}\.it\.v\.test\.$/), type: 'NSEC3' } },
    ],
    ['naptr.ins.v.test.', 'NAPTR', { rrset: { name: 'ins.v.test.', type: 'DS' } }],
  ];
  it.each(ABOUT)('%s %s: the verdict names its RRset and key', async (qname, qtype, about) => {
    const c = client('stub');
    try {
      const r = await c.lookup(qname, qtype, undefined);
      expect(r.validation).toMatchObject(about);
    } finally {
      await c.close();
    }
  });
});
