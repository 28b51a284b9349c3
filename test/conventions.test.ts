/**
 * One set of conventions across every command, each as one table run over
 * all of them (issue #20):
 * - `--help` goes to standard output, exits 0 and names the exit codes;
 * - usage errors (unknown option, bad option value, missing argument) exit 2
 *   with "Try 'lexroute <command> --help'" on standard error and nothing on
 *   standard output; bare `lexroute` prints its usage on standard error;
 * - positions for people are one-based columns, the same number in every
 *   command (`urn parse` "24:", `urn key` "3:", `resolve` "at column 24");
 *   JSON spans are zero-based offsets;
 * - every `urn` subcommand's --json failure has one shape:
 *   { ok: false, errors: [{ code, message, severity, span }] };
 * - a port in use is PORT_IN_USE for serve, resolver and dev;
 * - serve, resolver and dev log JSON lines with the same time, level and
 *   event keys.
 */
import net from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.ts';
import { commands } from '../src/cli/commands/index.ts';
import { captureIo } from './helpers/io.ts';

const REPO = path.resolve(import.meta.dirname, '..');

async function cli(...argv: string[]) {
  const io = captureIo({ cwd: REPO });
  const code = await run(argv, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** Every command and subcommand, as the words before the options. */
const ENTRIES = [
  ['urn'],
  ['urn', 'parse'],
  ['urn', 'normalize'],
  ['urn', 'key'],
  ['zone'],
  ['zone', 'check'],
  ['zone', 'print'],
  ['zone', 'build'],
  ['zone', 'explain'],
  ['chain'],
  ['chain', 'check'],
  ['serve'],
  ['resolve'],
  ['resolver'],
  ['catalogue'],
  ['dev'],
  ['ctl'],
  ['zone', 'sign'],
  ['zone', 'keygen'],
  ['zone', 'diff'],
];

describe('the table covers every command', () => {
  it('each registered command appears', () => {
    for (const c of commands)
      expect(
        ENTRIES.some((e) => e[0] === c.name),
        c.name,
      ).toBe(true);
  });
});

describe.each(ENTRIES)('lexroute %s', (...words) => {
  it('--help: standard output, exit 0, names the exit codes', async () => {
    const r = await cli(...words, '--help');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain('Usage: lexroute');
    expect(r.out).toMatch(/Exit codes?:[^\n]*0[^\n]*/);
    expect(r.out).toMatch(/2 usage/);
  });

  it('an unknown option is a usage error: exit 2, a hint on standard error, nothing on standard output', async () => {
    const r = await cli(...words, '--no-such-option');
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain(`Try 'lexroute ${words[0]} --help'`);
  });
});

/** A bad value for an option each command has: exit 2 too (not 1, not a crash). */
const BAD_VALUES: readonly (readonly string[])[] = [
  ['zone', 'check', '--origin', 'bad..name', 'zones/nic.it.zone'],
  ['zone', 'print', '--origin', 'bad..name', 'zones/nic.it.zone'],
  ['serve', '--listen', 'nowhere'],
  ['serve', '--log-level', 'loud'],
  ['serve', '--cookie-secret', 'xyz'],
  ['resolve', '--service', 'N2X', 'urn:lex:it:stato:legge:2000-04-03;56'],
  ['resolver', '--listen', 'nowhere'],
  ['catalogue', 'export', '--format', 'xml'],
  ['dev', '--dns-port', '99999'],
  ['urn', 'parse'],
  ['urn', 'key', 'a', 'b'],
];

describe('bad option values and missing arguments exit 2 everywhere', () => {
  it.each(BAD_VALUES)('lexroute %s ...', async (...argv) => {
    const r = await cli(...argv);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`Try 'lexroute ${argv[0]} --help'`);
  });

  it('bare lexroute prints its usage on standard error and exits 2', async () => {
    const r = await cli();
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toContain('Usage: lexroute <command>');
  });
});

describe('positions: one-based columns for people, zero-based offsets in JSON', () => {
  // "!" at offset 29 (column 30) is LEX_FUTURE_CHAR in every command.
  const urn = 'urn:lex:it:stato:legge:2020;1!x';
  const offset = urn.indexOf('!');

  it('urn parse, urn normalize, resolve: the same column', async () => {
    const parse = await cli('urn', 'parse', urn);
    expect(parse.err).toContain(`${offset + 1}: LEX_FUTURE_CHAR`);
    const normalize = await cli('urn', 'normalize', urn);
    expect(normalize.err).toContain(`${offset + 1}: LEX_FUTURE_CHAR`);
    const resolve = await cli('resolve', '--no-http', '--server', '127.0.0.1:9', urn);
    expect(resolve.code).toBe(1);
    expect(resolve.err).toContain('LEX_FUTURE_CHAR');
    expect(resolve.err).toContain(`at column ${offset + 1}`);
  });

  it('urn key: the column of the bad label', async () => {
    const key = await cli('urn', 'key', 'a..b');
    expect(key.err).toMatch(/^a\.\.b\n {1}\^+\n2: KEY_EMPTY_LABEL/);
  });

  it('JSON spans are zero-based', async () => {
    const parse = JSON.parse((await cli('urn', 'parse', '--json', urn)).out) as {
      errors: { span: { start: number } }[];
    };
    expect(parse.errors[0]!.span.start).toBe(offset);
  });
});

describe('one JSON error shape for every urn subcommand', () => {
  it.each([
    ['parse', 'urn:lex:it'],
    ['normalize', 'urn:lex:it'],
    ['key', 'a..b'],
  ])('urn %s --json on bad input', async (sub, input) => {
    const r = await cli('urn', sub, '--json', input);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out) as Record<string, unknown>;
    expect(Object.keys(j).sort()).toEqual(['errors', 'ok']);
    expect(j.ok).toBe(false);
    const errors = j.errors as Record<string, unknown>[];
    expect(errors.length).toBeGreaterThan(0);
    for (const e of errors) {
      expect(Object.keys(e).sort()).toEqual(['code', 'message', 'severity', 'span']);
      expect(e.code).toMatch(/^[A-Z][A-Z0-9_]+$/);
    }
  });
});

describe('a port in use: PORT_IN_USE from serve, resolver and dev', () => {
  let holder: net.Server;
  let port = 0;
  let dir: string;
  beforeAll(async () => {
    holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    port = (holder.address() as net.AddressInfo).port;
    dir = mkdtempSync(path.join(tmpdir(), 'lexroute-conventions-'));
  });
  afterAll(async () => {
    await new Promise<void>((r) => holder.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['serve', () => ['serve', '--zones', 'zones', '--listen', `127.0.0.1:${port}`, '--json']],
    ['resolver', () => ['resolver', '--listen', `127.0.0.1:${port}`, '--sample']],
    ['dev', () => ['dev', '--dns-port', String(port), '--http-port', '0', '--quiet']],
  ] as const)(
    '%s',
    async (_name, argv) => {
      const r = await cli(...argv());
      expect(r.code, r.err).toBe(1);
      expect(r.err).toContain('PORT_IN_USE');
    },
    30_000,
  );
});

describe('serve, resolver and dev log JSON lines with time, level and event', () => {
  const keys = (line: string): string[] => Object.keys(JSON.parse(line) as object).slice(0, 3);

  it('serve (start-up report with --json) and resolver', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lexroute-conventions-'));
    try {
      for (const argv of [
        ['serve', '--zones', 'zones', '--listen', '127.0.0.1:0', '--json'],
        ['resolver', '--listen', '127.0.0.1:0', '--sample'],
      ]) {
        const io = captureIo({ cwd: REPO });
        const done = run(argv, io);
        for (let i = 0; i < 400 && !/"event":"(ready|listening)"/.test(io.stderr()); i++) {
          await new Promise((r) => setTimeout(r, 25));
        }
        io.abort();
        expect(await done).toBe(0);
        const lines = io.stderr().trim().split('\n');
        expect(lines.length).toBeGreaterThan(1);
        for (const l of lines)
          expect(keys(l), `${argv[0]}: ${l}`).toEqual(['time', 'level', 'event']);
        expect(lines.at(-1)).toContain('"event":"stopped"');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});

describe('the same config shape for the same thing: listen is a list in server.json and resolver.json', () => {
  it('both validate a list; the resolver refuses the old single string (CONFIG_BAD_LISTEN)', async () => {
    const { validateServerConfig } = await import('../src/config/server.ts');
    const { validateResolverConfig } = await import('../src/config/resolver.ts');
    const list = ['127.0.0.1:8080', '[::1]:8080'];
    expect(validateServerConfig({ listen: list }).errors).toEqual([]);
    const r = validateResolverConfig({ listen: list });
    expect(r.ok && r.config.listen).toEqual(list);
    const old = validateResolverConfig({ listen: '127.0.0.1:8080' });
    expect(!old.ok && old.issues.map((i) => i.code)).toEqual(['CONFIG_BAD_LISTEN']);
    const bad = validateResolverConfig({ listen: [] });
    expect(!bad.ok && bad.issues.map((i) => i.code)).toEqual(['CONFIG_BAD_LISTEN']);
  });

  it('lexroute resolver listens on every address of the list', async () => {
    const io = captureIo({ cwd: REPO });
    const done = run(
      ['resolver', '--listen', '127.0.0.1:0', '--listen', '127.0.0.2:0', '--sample'],
      io,
    );
    let urls: string[] = [];
    for (let i = 0; i < 400 && urls.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 25));
      urls = [...io.stderr().matchAll(/"event":"listening","url":"([^"]+)"/g)].map((m) => m[1]!);
    }
    try {
      expect(urls.map((u) => new URL(u).hostname).sort()).toEqual(['127.0.0.1', '127.0.0.2']);
      for (const u of urls) expect((await fetch(`${u}/health`)).status).toBe(200);
    } finally {
      io.abort();
      expect(await done).toBe(0);
    }
  }, 30_000);
});
