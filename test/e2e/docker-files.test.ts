/**
 * What can be checked of the Docker build without a registry (no image can
 * be built here): the Dockerfile's targets, pinned base image and health
 * checks; the .dockerignore keeps the context to what the image copies; the
 * image's configuration files validate; and docker/healthcheck.mjs run
 * against a real `lexroute serve` and a real `lexroute resolver` says
 * healthy, and unhealthy against a closed port.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.ts';
import { validateResolverConfig } from '../../src/config/resolver.ts';
import { validateServerConfig } from '../../src/config/server.ts';
import { captureIo } from '../helpers/io.ts';
import { startTestServer, TEST_ZONES } from '../server/harness.ts';
import { REPO } from './helpers.ts';

const dockerfile = readFileSync(path.join(REPO, 'Dockerfile'), 'utf8');
const ignore = readFileSync(path.join(REPO, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const HEALTH = path.join(REPO, 'docker', 'healthcheck.mjs');

async function health(...args: string[]): Promise<number> {
  try {
    await promisify(execFile)(process.execPath, [HEALTH, ...args]);
    return 0;
  } catch (e) {
    return (e as { code?: number }).code ?? -1;
  }
}

describe('Dockerfile and .dockerignore', () => {
  it('a pinned base image: the Node version package.json pins', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(dockerfile).toContain(`ARG NODE_VERSION=${pkg.devDependencies.node}`);
    expect(dockerfile).toMatch(/^FROM node:\$\{NODE_VERSION\}-bookworm-slim AS base$/m);
  });

  it('server and resolver targets, each with a HEALTHCHECK, a non-root user and a command', () => {
    const stages = dockerfile.split(/^FROM /m).slice(1);
    const byName = new Map(stages.map((s) => [/AS (\w+)/.exec(s)![1]!, s]));
    expect([...byName.keys()]).toEqual(['base', 'resolver', 'server']);
    for (const name of ['server', 'resolver']) {
      const s = byName.get(name)!;
      expect(s, name).toMatch(
        /^HEALTHCHECK .*\n\s+CMD \["node", "\/opt\/lexroute\/docker\/healthcheck\.mjs"/m,
      );
      expect(s, name).toMatch(/^USER lexroute$/m);
      expect(s, name).toMatch(/^CMD \["(serve|resolver)", "--config"/m);
    }
    // The last stage is what a plain `docker build` gives: the server.
    expect(stages.at(-1)).toMatch(/^node:.*AS server|^base AS server/);
  });

  it('.dockerignore leaves out everything but what the Dockerfile copies', () => {
    expect(ignore[0]).toBe('**');
    const included = ignore
      .filter((l) => l.startsWith('!'))
      .map((l) => l.slice(1).replace(/\/$/, ''));
    const copied = [...dockerfile.matchAll(/^COPY (\S+(?: \S+)*) \S+$/gm)].flatMap((m) =>
      m[1]!.split(' '),
    );
    expect(copied.length).toBeGreaterThan(5);
    for (const c of copied) {
      const p = c.replace(/\/$/, '');
      expect(included, `${p} is copied but ignored`).toContain(p);
      expect(existsSync(path.join(REPO, p)), p).toBe(true);
    }
    for (const i of included) expect(copied.map((c) => c.replace(/\/$/, ''))).toContain(i);
    expect(included).not.toContain('node_modules');
  });

  it('the image configuration files validate', () => {
    const server = JSON.parse(readFileSync(path.join(REPO, 'config/server.docker.json'), 'utf8'));
    const s = validateServerConfig(server);
    expect(s.errors).toEqual([]);
    expect(s.config.listen).toEqual([
      { host: '0.0.0.0', port: 53 },
      { host: '::', port: 53 },
    ]);
    const resolver = JSON.parse(
      readFileSync(path.join(REPO, 'config/resolver.docker.json'), 'utf8'),
    );
    expect(validateResolverConfig(resolver).ok).toBe(true);
  });
});

describe('docker/healthcheck.mjs', () => {
  it('dns: healthy against lexroute serve, unhealthy against a closed port', async () => {
    const h = await startTestServer([path.join(TEST_ZONES, 'example.test.zone')]);
    try {
      expect(await health('dns', '127.0.0.1', String(h.port))).toBe(0);
    } finally {
      await h.close();
    }
    expect(await health('dns', '127.0.0.1', String(h.port))).toBe(1);
  }, 20_000);

  it('http: healthy against lexroute resolver /health, unhealthy once it stopped', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lexroute-docker-'));
    const io = captureIo({ cwd: REPO });
    const done = run(['resolver', '--listen', '127.0.0.1:0', '--sample'], io);
    try {
      let url: string | undefined;
      for (let i = 0; i < 400 && !url; i++) {
        await new Promise((r) => setTimeout(r, 25));
        url = /"url":"(http:[^"]+)"/.exec(io.stderr())?.[1];
      }
      expect(url, io.stderr()).toBeDefined();
      expect(await health('http', `${url}/health`)).toBe(0);
      expect(await health('http', `${url}/no-such-route`)).toBe(1);
      io.abort();
      expect(await done).toBe(0);
      expect(await health('http', `${url}/health`)).toBe(1);
    } finally {
      io.abort();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
