/**
 * TSIG (RFC 8945) on zone transfers: NSD, Knot and BIND, each a secondary
 * with the key, transfer the zone (AXFR, then IXFR after a signed NOTIFY);
 * `dig -y` checks the MAC of every message of a multi-message AXFR (section
 * 5.3.1), with hmac-sha256, hmac-sha512 and hmac-md5 keys; a wrong secret
 * gets NOTAUTH/BADSIG, an unknown key BADKEY, a stale time BADTIME (signed,
 * with our time), an unsigned request and a signed one from outside the
 * address ACL get REFUSED.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SERVER_CONFIG } from '../../src/config/server.ts';
import { createLogger } from '../../src/authority/log.ts';
import { startServer, type RunningServer } from '../../src/authority/server.ts';
import { readTsig, TsigSigner, type TsigAlgorithm } from '../../src/xfr/core/tsig.ts';
import { nodeHmac } from '../../src/xfr/tsig.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import type { Daemon } from '../e2e/daemons.ts';
import { freePort } from '../server/named.ts';
import { query } from '../server/harness.ts';
import { startAllSecondaries, stopAll } from './secondaries.ts';
import { xfrQuery } from './client.ts';

const run = promisify(execFile);
const nsd = toolOrSkip('nsd');
const knotd = toolOrSkip('knotd');
const named = toolOrSkip('named');
const dig = toolOrSkip('dig');
const skip = nsd.skipReason ?? knotd.skipReason ?? named.skipReason ?? dig.skipReason;

const ORIGIN = 'tsig.xfr.test.';
const N = 3000;
const keys = {
  sha256: { name: 'xfr-key.', algorithm: 'hmac-sha256' as TsigAlgorithm, secret: randomBytes(32) },
  sha512: { name: 'xfr-512.', algorithm: 'hmac-sha512' as TsigAlgorithm, secret: randomBytes(64) },
  md5: { name: 'old-peer.', algorithm: 'hmac-md5' as TsigAlgorithm, secret: randomBytes(16) },
};
const b64 = (k: { secret: Buffer }) => k.secret.toString('base64');

function zoneText(serial: number, extra = ''): string {
  const lines = [
    `$ORIGIN ${ORIGIN}`,
    '$TTL 300',
    `@ SOA ns1 hostmaster ${serial} 3600 600 86400 300`,
    '@ NS ns1',
    'ns1 A 127.0.0.1',
  ];
  for (let i = 0; i < N; i++)
    lines.push(`r${i} NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://127.0.0.1/${i}?\\\\1!" .`);
  return `${lines.join('\n')}\n${extra}`;
}

/** One signed (or unsigned) AXFR request over TCP from `local`; the first answer message. */
function firstAnswer(port: number, msg: Uint8Array, local = '127.0.0.1'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const framed = Buffer.alloc(msg.length + 2);
    framed.writeUInt16BE(msg.length, 0);
    framed.set(msg, 2);
    const s = net.connect({ port, host: '127.0.0.1', localAddress: local }, () => s.write(framed));
    let buf = Buffer.alloc(0);
    s.on('error', reject);
    s.on('data', (c: Buffer) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        s.destroy();
        resolve(buf.subarray(2, 2 + buf.readUInt16BE(0)));
      }
    });
  });
}

function signed(key: (typeof keys)['sha256'], time = Math.floor(Date.now() / 1000)): Uint8Array {
  return new TsigSigner(key, nodeHmac, time, undefined).sign(xfrQuery(ORIGIN, 'AXFR').subarray(2));
}

describe.skipIf(skip !== undefined)(
  `TSIG-protected transfers${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    let dir: string;
    let file: string;
    let server: RunningServer;
    let port = 0;
    const events: Record<string, unknown>[] = [];
    const daemons: Daemon[] = [];
    let ports: number[] = [];

    beforeAll(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-tsig-'));
      file = path.join(dir, `${ORIGIN}zone`);
      writeFileSync(file, zoneText(1));
      // BIND's key file format, as tsig-keygen writes it.
      writeFileSync(
        path.join(dir, 'keys.conf'),
        Object.values(keys)
          .map(
            (k) =>
              `key "${k.name.slice(0, -1)}" {\n\talgorithm ${k.algorithm};\n\tsecret "${b64(k)}";\n};\n`,
          )
          .join(''),
      );
      ports = [await freePort(), await freePort(), await freePort()];
      const log = createLogger(
        (l) => void events.push(JSON.parse(l) as Record<string, unknown>),
        'info',
        'json',
      );
      server = await startServer({
        config: {
          ...DEFAULT_SERVER_CONFIG,
          listen: [{ host: '127.0.0.1', port: 0 }],
          zones: [file],
          allowTransfer: ['127.0.0.1/32', 'key xfr-key', 'key xfr-512', 'key old-peer'],
          tsigKeys: 'keys.conf',
          secondaries: ports.map((p) => ({ host: '127.0.0.1', port: p })),
          transfer: {
            ...DEFAULT_SERVER_CONFIG.transfer,
            notifyTimeoutMs: 250,
            notifyTries: 4,
            messageSize: 16384,
          },
        },
        log,
        cwd: dir,
      });
      port = server.tcp[0]!.port;
      const k = keys.sha256;
      const primary = {
        host: '127.0.0.1',
        port,
        key: { name: k.name.slice(0, -1), algorithm: k.algorithm, secret: b64(k) },
      };
      daemons.push(
        ...(await startAllSecondaries(
          { nsd: nsd.path!, knotd: knotd.path!, named: named.path! },
          ports,
          primary,
          [ORIGIN],
        )),
      );
    }, 60_000);

    afterAll(() => stopAll(daemons, server, dir));

    it('NSD, Knot and BIND with the key transfer the zone, then an IXFR after a signed NOTIFY', async () => {
      const signedOut = events.filter((e) => e.event === 'xfr_out' && e.key === 'xfr-key.');
      expect(signedOut.length).toBeGreaterThanOrEqual(3);
      writeFileSync(
        file,
        zoneText(2, 'added NAPTR 100 10 "u" "http+N2L" "!^(.*)$!http://new/?\\\\1!" .\n'),
      );
      const before = events.length;
      await server.reload();
      for (const [i, d] of daemons.entries()) {
        const t0 = performance.now();
        for (;;) {
          const r = await query(ports[i]!, 'udp', `added.${ORIGIN}`, 'NAPTR');
          if (r.rcode === 0 && r.answer.length === 1) break;
          if (performance.now() - t0 > 10_000)
            throw new Error(`${d.name} did not transfer:\n${d.output()}`);
          await new Promise((r) => setTimeout(r, 25));
        }
      }
      const after = events.slice(before);
      expect(
        after.filter((e) => e.event === 'notify_sent' && e.serial === 2 && e.answer === 'NOERROR'),
      ).toHaveLength(3);
      expect(
        after.filter(
          (e) => e.event === 'xfr_out' && e.kind === 'IXFR:incremental' && e.key === 'xfr-key.',
        ).length,
      ).toBeGreaterThanOrEqual(3);
    });

    it.each(Object.entries(keys))(
      'dig -y (%s) verifies every message of a multi-message AXFR',
      async (_, k) => {
        const { stdout } = await run(
          'dig',
          [
            '-y',
            `${k.algorithm}:${k.name.slice(0, -1)}:${b64(k)}`,
            '@127.0.0.1',
            '-p',
            String(port),
            ORIGIN,
            'AXFR',
          ],
          { maxBuffer: 64 << 20 },
        );
        expect(stdout).not.toMatch(/Transfer failed|Couldn't verify|verify failure/i);
        const m = /XFR size: (\d+) records \(messages (\d+)/.exec(stdout);
        expect(Number(m![1])).toBe(N + 5);
        expect(Number(m![2])).toBeGreaterThan(5);
      },
    );

    it('a wrong secret gets NOTAUTH/BADSIG, an unknown key BADKEY, an old time BADTIME (signed, with our time)', async () => {
      const wrong = await firstAnswer(port, signed({ ...keys.sha256, secret: randomBytes(32) }));
      expect(wrong[3]! & 0xf).toBe(9);
      const t1 = readTsig(wrong);
      expect(t1 !== undefined && t1 !== 'FORMERR' && t1.error).toBe(16);
      const unknown = await firstAnswer(port, signed({ ...keys.sha256, name: 'nobody.' }));
      const t2 = readTsig(unknown);
      expect(t2 !== undefined && t2 !== 'FORMERR' && t2.error).toBe(17);
      const old = await firstAnswer(
        port,
        signed(keys.sha256, Math.floor(Date.now() / 1000) - 3600),
      );
      const t3 = readTsig(old);
      expect(old[3]! & 0xf).toBe(9);
      if (t3 === undefined || t3 === 'FORMERR') throw new Error('no TSIG on the BADTIME answer');
      expect(t3.error).toBe(18);
      expect(t3.mac.length).toBe(32);
      expect(t3.other.length).toBe(6);
      expect(server.transfers.stats.tsigFailed).toBeGreaterThanOrEqual(3);
    });

    it('a TSIG record that is not the last record: FORMERR, unsigned, as NSD, Knot and BIND answer', async () => {
      // RFC 8945 section 5.1: a TSIG anywhere but last makes the message corrupt (FORMERR).
      const good = signed(keys.sha256);
      const extra = Uint8Array.of(0, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 192, 0, 2, 1); // ". A 192.0.2.1"
      const bad = new Uint8Array(good.length + extra.length);
      bad.set(good);
      bad.set(extra, good.length);
      bad[11] = bad[11]! + 1; // ARCOUNT
      const failedBefore = server.transfers.stats.tsigFailed;
      const ours = await firstAnswer(port, bad);
      expect(ours[3]! & 0xf).toBe(1);
      expect(readTsig(ours)).toBeUndefined();
      expect(server.transfers.stats.tsigFailed).toBe(failedBefore + 1);
      const theirs = await Promise.all(
        daemons.map(async (d, i) => [d.name, (await firstAnswer(ports[i]!, bad))[3]! & 0xf]),
      );
      expect(theirs).toEqual(daemons.map((d) => [d.name, 1]));
    });

    it('unsigned, or signed but from outside the address ACL: REFUSED', async () => {
      const unsigned = await firstAnswer(port, xfrQuery(ORIGIN, 'AXFR').subarray(2));
      expect(unsigned[3]! & 0xf).toBe(5);
      const outside = await firstAnswer(port, signed(keys.sha256), '127.0.0.2');
      expect(outside[3]! & 0xf).toBe(5);
    });
  },
);
