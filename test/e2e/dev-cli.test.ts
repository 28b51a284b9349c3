/**
 * `lexroute dev` in-process: it starts the chain, prints what runs where and
 * commands that work as printed, answers a resolution, and stops on abort.
 * Ports are moved (--dns-port 0 --http-port 0) so a running `npm start`
 * does not collide with the test.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { resolveLexUrn } from '../../src/client/resolve.ts';
import { captureIo } from '../helpers/io.ts';
import { REPO } from './helpers.ts';
import { waitFor } from '../helpers/wait.ts';

describe('lexroute dev', () => {
  it('--help describes the command', async () => {
    const io = captureIo({ cwd: REPO });
    expect(await run(['dev', '--help'], io)).toBe(0);
    expect(io.stdout()).toMatch(/^Usage: lexroute dev/);
    expect(io.stdout()).toContain('--dns-port');
  });

  it('starts the chain, prints commands that work, resolves, and stops on abort', async () => {
    const io = captureIo({ cwd: REPO });
    const done = run(['dev', '--dns-port', '0', '--http-port', '0'], io);
    const out = await waitFor('the banner', () =>
      io.stdout().includes('Other ways in:') ? io.stdout() : undefined,
    );
    const root = /from the root at (127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(root).toBeDefined();
    expect(out).toMatch(
      new RegExp(`${root!.replace(/\./g, '\\.')}\\s+registries: \\. urn\\.arpa\\.`),
    );
    expect(out).toMatch(/127\.0\.0\.2:\d+\s+jurisdictions: lex\.sao-paulo\.gov\.br\./);
    // Every printed resolve command runs as printed (in-process) and succeeds.
    const commands = out
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('npx lexroute resolve ') && !l.includes('#'));
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const c of commands) {
      const argv = c
        .slice('npx lexroute '.length)
        .match(/'[^']*'|\S+/g)!
        .map((w) => w.replace(/^'(.*)'$/, '$1'));
      const cio = captureIo({ cwd: REPO });
      const code = await run(argv, cio);
      expect(code, `${c}\n${cio.stderr()}`).toBe(0);
      expect(cio.stdout().trim().split('\n').at(-1), c).toMatch(/^https?:\/\//);
    }
    // The library, too; and the request shows in the dev log.
    const r = await resolveLexUrn('urn:lex:eec.lex.arpa:court.justice:judgement:1960-04-04;4-59', {
      root: root!,
    });
    expect(r.urls).toEqual([
      'https://eur-lex.europa.eu/legal-content/FR/TXT/?uri=CELEX:61959CJ0004',
    ]);
    expect(io.stderr()).toMatch(
      /resolver-2: GET \/uri-res\/N2L\?urn:lex:eec\.lex\.arpa:.* 303 -> https:/,
    );

    io.abort();
    expect(await done).toBe(0);
    expect(io.stderr()).toContain('lexroute dev: stopped');
    // Everything is closed: the root port is free again.
    const [host, port] = root!.split(':');
    await new Promise<void>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(Number(port), host, () => s.close(() => resolve()));
    });
  });

  it('a port in use: exit 1 and a message naming the address', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.2', () => r()));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const io = captureIo({ cwd: REPO });
      const code = await run(['dev', '--dns-port', '0', '--http-port', String(port)], io);
      expect(code).toBe(1);
      expect(io.stderr()).toContain(
        `lexroute dev: PORT_IN_USE: 127.0.0.2:${port} (resolver "resolver-2") is already in use`,
      );
    } finally {
      blocker.close();
    }
  });

  it('configuration errors: exit 1 with code and JSON path; usage errors exit 2', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lexroute-dev-conf-'));
    try {
      const bad = path.join(dir, 'dev.json');
      await writeFile(
        bad,
        JSON.stringify({
          dns: [{ name: 'a', listen: '127.0.0.1', zones: ['zones/urn.arpa.zone'] }],
          resolvers: [{ name: 'r', listen: '127.0.0.1:8300', colour: 'blue' }],
          sampleCatalogue: 'data/sample-catalogue.jsonl',
        }),
      );
      const io = captureIo({ cwd: REPO });
      expect(await run(['dev', '--config', bad], io)).toBe(1);
      expect(io.stderr()).toContain('DEV_CONFIG_BAD_LISTEN dns[0].listen');
      expect(io.stderr()).toContain('DEV_CONFIG_UNKNOWN_KEY resolvers[0].colour');

      const missing = captureIo({ cwd: REPO });
      expect(await run(['dev', '--config', path.join(dir, 'none.json')], missing)).toBe(1);
      expect(missing.stderr()).toContain('CONFIG_UNREADABLE');

      const usage = captureIo({ cwd: REPO });
      expect(await run(['dev', '--dns-port', 'x'], usage)).toBe(2);
      expect(usage.stderr()).toContain('--dns-port must be a port number');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
