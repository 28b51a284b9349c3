/**
 * AXFR out (RFC 5936) over real TCP: `dig AXFR` gives the zone as
 * `named-compilezone` prints it (record sets compared, SOA first and last),
 * across several messages for a large zone (`kdig` counts them); the ACL
 * refuses everyone else, and the default is no transfers at all; queries
 * pipelined behind a transfer on the same connection are answered after it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SAMPLE_ZONES,
  TEST_ZONES,
  startTestServer,
  type Harness,
  buildQuery,
  tcpRaw,
  decode,
} from '../server/harness.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { xfr, xfrQuery } from './client.ts';

const run = promisify(execFile);
const dig = toolOrSkip('dig');
const kdig = toolOrSkip('kdig');
const compile = toolOrSkip('named-compilezone');

/** Presentation lines without comments, blank lines and runs of white space. */
function records(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith(';'))
    .map((l) => l.replace(/\s+/g, ' ').trim());
}

const FILES = [
  ...['example.test', 'signed.test', 'svcb.test'].map((o) => ({
    origin: `${o}.`,
    file: path.join(TEST_ZONES, `${o}.zone`),
  })),
  ...readdirSync(SAMPLE_ZONES)
    .filter((f) => f.endsWith('.zone'))
    .map((f) => ({ origin: f.slice(0, -4), file: path.join(SAMPLE_ZONES, f) })),
];

describe.skipIf(dig.skipReason ?? compile.skipReason)(
  'AXFR (RFC 5936) against named-compilezone',
  () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startTestServer(
        FILES.map((f) => f.file),
        { allowTransfer: ['127.0.0.1/32'] },
      );
    });
    afterAll(() => h?.close());

    it.each(FILES)(
      'dig AXFR $origin equals named-compilezone, SOA first and last',
      async ({ origin, file }) => {
        const got = records(
          (
            await run('dig', [
              '+nocmd',
              '+nostats',
              `@127.0.0.1`,
              '-p',
              String(h.port),
              origin,
              'AXFR',
            ])
          ).stdout,
        );
        const want = records(
          (
            await run('named-compilezone', [
              '-q',
              '-i',
              'none',
              '-k',
              'ignore',
              '-f',
              'text',
              '-F',
              'text',
              '-s',
              'full',
              '-o',
              '-',
              origin,
              file,
            ])
          ).stdout,
        );
        expect(got[0]).toBe(want.find((l) => l.split(' ')[3] === 'SOA'));
        expect(got.at(-1)).toBe(got[0]);
        expect(got.slice(0, -1).sort()).toEqual(want.sort());
      },
    );
  },
);

describe.skipIf(kdig.skipReason)('AXFR of a large zone, ACL and pipelining', () => {
  let dir: string;
  let h: Harness;
  let open: Harness;
  const ORIGIN = 'big.xfr.test.';
  const N = 20_000;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-axfr-'));
    const lines = [
      `$ORIGIN ${ORIGIN}`,
      '$TTL 300',
      '@ SOA ns1 hostmaster 7 3600 600 86400 300',
      '@ NS ns1',
      'ns1 A 127.0.0.1',
    ];
    for (let i = 0; i < N; i++)
      lines.push(
        `w${i}.law NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1:8300/${i}?\\\\1!" .`,
      );
    writeFileSync(path.join(dir, `${ORIGIN}zone`), `${lines.join('\n')}\n`);
    h = await startTestServer([path.join(dir, `${ORIGIN}zone`)], {
      allowTransfer: ['127.0.0.0/8'],
    });
    open = await startTestServer([path.join(dir, `${ORIGIN}zone`)]);
  });
  afterAll(async () => {
    await h?.close();
    await open?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('kdig AXFR gets every record, in several messages, SOA first and last', async () => {
    const out = (
      await run(
        'kdig',
        ['+noall', '+answer', '+stats', '@127.0.0.1', '-p', String(h.port), ORIGIN, 'AXFR'],
        { maxBuffer: 64 << 20 },
      )
    ).stdout;
    const m = /Received \d+ B \((\d+) messages, (\d+) records\)/.exec(out);
    expect(m).not.toBeNull();
    expect(Number(m![2])).toBe(N + 4);
    expect(Number(m![1])).toBeGreaterThan(1);
    const lines = records(out);
    expect(lines[0]).toMatch(/ SOA /);
    expect(lines.at(-1)).toBe(lines[0]);
  });

  it('without --allow-transfer every AXFR and IXFR is REFUSED (the default)', async () => {
    expect((await xfr(open.port, xfrQuery(ORIGIN, 'AXFR'))).rcode).toBe(5);
    expect((await xfr(open.port, xfrQuery(ORIGIN, 'IXFR', 1))).rcode).toBe(5);
    // A zone we do not serve, allowed address or not.
    expect((await xfr(h.port, xfrQuery('other.test.', 'AXFR'))).rcode).toBe(5);
  });

  it('a query pipelined behind a transfer is answered after its last message', async () => {
    const whole = await xfr(h.port, xfrQuery(ORIGIN, 'AXFR'));
    expect(whole.complete).toBe(true);
    expect(whole.messages).toBeGreaterThan(1);
    const q = buildQuery(`w5.law.${ORIGIN}`, 'NAPTR', { id: 77 });
    const res = await tcpRaw(
      h.port,
      [xfrQuery(ORIGIN, 'AXFR').subarray(2), q],
      whole.messages + 1,
      10_000,
    );
    expect(res).toHaveLength(whole.messages + 1);
    const last = decode(res.at(-1)!);
    expect(last.id).toBe(77);
    expect(last.answer).toHaveLength(1);
    expect(res.slice(0, -1).every((m) => m.readUInt16BE(0) === 4242)).toBe(true);
  });
});
