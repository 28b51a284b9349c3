/**
 * The client's DNS over HTTPS transport (RFC 8484): `lexroute resolve --doh`
 * against lexroute's own DoH endpoint (GET and POST) and through dnsdist's
 * DoH front end (a server not written here) in front of the chain's zones,
 * with the same results as the UDP client; the trace names the DoH URL; a
 * DoH server that fails moves on to the next URL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { resolveLexUrn } from '../../src/client/resolve.ts';
import { freePortOnAll } from '../../src/dev/ports.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { CATALOGUE, startDohChain, type Chain, type DohChain } from './helpers/chain.ts';

const FEDERAL = 'urn:lex:br:federal:lei:2002-01-10;10406';
const SP = 'urn:lex:br;sao.paulo:governo:decreto:2008-03-05;52789';
const MUNICH = 'urn:lex:de;m%C3%BCnchen:stadt:rundschreiben:2020-01-01;1';
const dnsdist = toolOrSkip('dnsdist');

let served: DohChain;
let chain: Chain;
let dns: string;
let doh: string;

beforeAll(async () => {
  served = await startDohChain();
  ({ chain, dns, doh } = served);
});

afterAll(async () => {
  await served?.close();
});

async function resolveJson(
  args: string[],
): Promise<{ code: number; json: Record<string, unknown> }> {
  const io = captureIo();
  const code = await run(['resolve', ...args, '--json'], io);
  return { code, json: JSON.parse(io.stdout() || io.stderr()) as Record<string, unknown> };
}

describe('lexroute resolve --doh (lexroute serve --doh)', () => {
  it.each([
    [FEDERAL, CATALOGUE[0]?.url],
    [`${SP}~art1`, `${CATALOGUE[1]?.url}#art1`],
    [MUNICH, CATALOGUE[2]?.url],
  ])('%s resolves as over UDP, with GET and with POST', async (urn, url) => {
    const udp = await resolveJson([urn, '--server', dns]);
    const get = await resolveJson([urn, '--doh', doh]);
    const post = await resolveJson([urn, '--doh', doh, '--doh-post']);
    expect(udp.code).toBe(0);
    expect(get).toEqual(udp);
    expect(post).toEqual(udp);
    expect(get.json.urls).toEqual([url]);
  });

  it('a failure has the same code as over UDP', async () => {
    const udp = await resolveJson(['urn:lex:zz:x:y:2000;1', '--server', dns]);
    const get = await resolveJson(['urn:lex:zz:x:y:2000;1', '--doh', doh]);
    expect(udp.code).toBe(1);
    expect(udp.json.code).toBe('DNS_NXDOMAIN');
    // The same failure; only the server named differs (the DoH URL instead of ADDR:PORT).
    expect(JSON.stringify(get).replaceAll(doh, dns)).toBe(JSON.stringify(udp));
  });

  it('--trace names the DoH URL and the doh transport', async () => {
    const io = captureIo();
    expect(await run(['resolve', MUNICH, '--doh', doh, '--trace'], io)).toBe(0);
    expect(io.stdout()).toContain(`from ${doh} (doh`);
    expect(io.stdout()).toContain(`stub mode via ${doh}`);
  });

  it('a DoH URL that fails (HTTP 500, then a dead port) gives way to the next one', async () => {
    const bad = http.createServer((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    await new Promise<void>((r) => bad.listen(0, '127.0.0.1', r));
    const badUrl = `http://127.0.0.1:${(bad.address() as { port: number }).port}/dns-query`;
    try {
      const r = await resolveLexUrn(FEDERAL, { doh: [badUrl, doh], timeoutMs: 1000, tries: 1 });
      expect(r.kind === 'resolved' && r.urls).toEqual([CATALOGUE[0]?.url]);
      await expect(
        resolveLexUrn(FEDERAL, { doh: [badUrl], timeoutMs: 1000, tries: 1 }),
      ).rejects.toMatchObject({ code: 'DNS_DOH_STATUS' });
    } finally {
      bad.close();
    }
  });

  it('--doh with a non-http URL is a usage error (exit 2)', async () => {
    const io = captureIo();
    expect(await run(['resolve', FEDERAL, '--doh', 'ftp://x/dns-query'], io)).toBe(2);
    expect(io.stderr()).toContain('not http(s)');
  });
});

describe.skipIf(dnsdist.skipReason !== undefined)('through dnsdist addDOHLocal', () => {
  let proc: ChildProcess | undefined;
  let url: string;
  beforeAll(async () => {
    const port = await freePortOnAll(['127.0.0.1']);
    const [, backend] = dns.split(':');
    const conf = path.join(chain.dir, 'dnsdist.conf');
    await writeFile(
      conf,
      [
        'setSecurityPollSuffix("")',
        `newServer({address="127.0.0.1:${backend}", checkName="lex.urn.arpa.", checkType="NAPTR"})`,
        `addDOHLocal("127.0.0.1:${port}", nil, nil, "/dns-query")`,
        '',
      ].join('\n'),
    );
    let out = '';
    proc = spawn(dnsdist.path!, ['--supervised', '--disable-syslog', '-C', conf], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (out += d.toString()));
    url = `http://127.0.0.1:${port}/dns-query`;
    for (let i = 0; i < 100; i++) {
      if (proc.exitCode !== null) throw new Error(`dnsdist exited: ${out}`);
      try {
        const r = await resolveLexUrn(FEDERAL, {
          doh: url,
          noHttp: true,
          timeoutMs: 300,
          tries: 1,
        });
        if (r.kind === 'resolved') return;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`dnsdist did not answer over DoH: ${out.slice(-2000)}`);
  });
  afterAll(() => {
    proc?.kill('SIGKILL');
  });

  it.each([FEDERAL, `${SP}~art1`, MUNICH])('%s resolves as over UDP', async (urn) => {
    const udp = await resolveJson([urn, '--server', dns]);
    const viaDnsdist = await resolveJson([urn, '--doh', url]);
    expect(udp.code).toBe(0);
    expect(viaDnsdist).toEqual(udp);
  });
});
