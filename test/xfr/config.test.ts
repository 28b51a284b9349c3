/**
 * The transfer settings as the configuration and the command line take
 * them: prefixes and `key NAME` in allowTransfer, tsigKeys as a BIND key
 * file or objects, NOTIFY targets; each mistake has its stable code (and a
 * line for key files), and `serve` refuses bad flags with exit 2.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SERVER_CONFIG,
  parsePrimary,
  validateServerConfig,
} from '../../src/config/server.ts';
import { serveFlags, type ServeValues } from '../../src/cli/commands/serve-flags.ts';
import { parseTsigKeyFile } from '../../src/config/tsig-keys.ts';
import { run } from '../../src/cli/main.ts';
import { captureIo } from '../helpers/io.ts';

describe('transfer configuration', () => {
  it('accepts prefixes, key entries, key objects and NOTIFY targets', () => {
    const { config, errors } = validateServerConfig({
      allowTransfer: ['192.0.2.0/24', '2001:db8::/32', 'key xfr-key'],
      tsigKeys: [{ name: 'xfr-key', algorithm: 'hmac-sha256', secret: 'c2VjcmV0' }],
      secondaries: ['192.0.2.10:53', '[2001:db8::10]:53'],
      transfer: { maxConcurrent: 4, historyCount: 0, stateDir: '/var/lib/lexroute' },
    });
    expect(errors).toEqual([]);
    expect(config.secondaries).toEqual([
      { host: '192.0.2.10', port: 53 },
      { host: '2001:db8::10', port: 53 },
    ]);
    expect(config.transfer.maxConcurrent).toBe(4);
    expect(config.transfer.historyCount).toBe(0);
  });

  it('names each bad value with its code and path', () => {
    const { errors } = validateServerConfig({
      allowTransfer: ['not an address'],
      tsigKeys: [{ name: 'k', algorithm: 'hmac-sha256' }],
      secondaries: ['example.org:53'],
      transfer: { maxConcurrent: 0, colour: 'red' },
    });
    expect(errors.map((e) => [e.code, e.path])).toEqual(
      expect.arrayContaining([
        ['CONFIG_BAD_PREFIX', 'allowTransfer[0]'],
        ['CONFIG_BAD_TSIG_KEY', 'tsigKeys[0]'],
        ['CONFIG_BAD_LISTEN', 'secondaries[0]'],
        ['CONFIG_BAD_NUMBER', 'transfer.maxConcurrent'],
        ['CONFIG_UNKNOWN_KEY', 'transfer.colour'],
      ]),
    );
  });
});

describe('secondary zones', () => {
  it('reads {origin, primaries} with keys, and parses ADDR:PORT [key NAME]', () => {
    const { config, errors } = validateServerConfig({
      zones: [
        'zones',
        { origin: 'Lex.Example', primaries: ['192.0.2.1:53', '[2001:db8::1]:5300 key xfr-key'] },
      ],
    });
    expect(errors).toEqual([]);
    expect(config.zones[1]).toEqual({
      origin: 'lex.example.',
      primaries: [
        { host: '192.0.2.1', port: 53 },
        { host: '2001:db8::1', port: 5300, key: 'xfr-key' },
      ],
    });
    expect(parsePrimary('127.0.0.1:53,key k')).toEqual({ host: '127.0.0.1', port: 53, key: 'k' });
    expect(parsePrimary('127.0.0.1:53 kee k')).toMatch(/not ADDR:PORT/);
  });
});

describe('BIND key files', () => {
  it('reads tsig-keygen output, comments and several keys', () => {
    const r = parseTsigKeyFile(`# made by tsig-keygen
key "xfr-key" {
\talgorithm hmac-sha256;
\tsecret "c2VjcmV0c2VjcmV0";
};
// an old peer
key old.peer. { algorithm hmac-md5.sig-alg.reg.int; secret "b2xk"; }; /* done */
`);
    expect(r.errors).toEqual([]);
    expect(r.keys.map((k) => [k.name, k.algorithm, Buffer.from(k.secret).toString()])).toEqual([
      ['xfr-key.', 'hmac-sha256', 'secretsecret'],
      ['old.peer.', 'hmac-md5', 'old'],
    ]);
  });

  it.each([
    ['key "a" { algorithm hmac-sha999; secret "c2VjcmV0"; };', 'TSIG_KEY_ALGORITHM', 1],
    ['key "a" {\n algorithm hmac-sha256;\n secret "not base64!";\n};', 'TSIG_KEY_SECRET', 3],
    ['key "a" { algorithm hmac-sha256; secret "c2VjcmV0"; }', 'TSIG_KEY_SYNTAX', 1],
    ['options { };', 'TSIG_KEY_SYNTAX', 1],
    [
      'key "a" { algorithm hmac-sha256; secret "c2VjcmV0"; };\nkey "a" { algorithm hmac-sha256; secret "c2VjcmV0"; };',
      'TSIG_KEY_DUPLICATE',
      2,
    ],
  ])('%j: %s at line %i', (text, code, line) => {
    const r = parseTsigKeyFile(text);
    expect(r.errors[0]?.code).toBe(code);
    expect(r.errors[0]?.line).toBe(line);
  });
});

describe('lexroute serve transfer flags', () => {
  it.each([
    ['--allow-transfer', '300.0.0.1'],
    ['--notify', 'example.org:53'],
    ['--notify', 'bad zone=127.0.0.1:53'],
    ['--notify', 'example.=127.0.0.1'],
    ['--notify-source', 'ns.example'],
    ['--secondary', 'example.'],
    ['--secondary', 'example.=ns.example:53'],
    ['--secondary', 'example.=127.0.0.1:53,key'],
  ])('%s %s is a usage error (exit 2)', async (flag, value) => {
    const io = captureIo();
    expect(await run(['serve', flag, value], io)).toBe(2);
    expect(io.stderr()).toContain(flag);
  });
});

describe('lexroute serve --notify', () => {
  const secondaries = (notify: string[]) =>
    serveFlags({ notify } as ServeValues).over(DEFAULT_SERVER_CONFIG).secondaries;

  it('ADDR:PORT means every zone, ZONE=ADDR:PORT that zone; one address gathers its zones', () => {
    expect(
      secondaries([
        'Lex.Example=192.0.2.1:53',
        '192.0.2.2:53',
        'other.example.=192.0.2.1:53',
        '[2001:db8::3]:53',
      ]),
    ).toEqual([
      { host: '192.0.2.1', port: 53, zones: ['lex.example.', 'other.example.'] },
      { host: '192.0.2.2', port: 53 },
      { host: '2001:db8::3', port: 53 },
    ]);
    // The same address for every zone and for one: every zone.
    expect(secondaries(['a.example.=192.0.2.1:53', '192.0.2.1:53'])).toEqual([
      { host: '192.0.2.1', port: 53 },
    ]);
  });

  it('--notify-source sets transfer.notifySource; both forms are in serve --help', async () => {
    const config = serveFlags({ 'notify-source': '192.0.2.53' } as ServeValues).over(
      DEFAULT_SERVER_CONFIG,
    );
    expect(config.transfer.notifySource).toBe('192.0.2.53');
    const io = captureIo();
    expect(await run(['serve', '--help'], io)).toBe(0);
    expect(io.stdout()).toContain('--notify ZONE=ADDR:PORT');
    expect(io.stdout()).toContain('--notify-source ADDR');
  });

  it('the config takes {"address", "zones"} in secondaries', () => {
    const { config, errors } = validateServerConfig({
      secondaries: [{ address: '192.0.2.1:53', zones: ['Lex.Example'] }],
    });
    expect(errors).toEqual([]);
    expect(config.secondaries).toEqual([{ host: '192.0.2.1', port: 53, zones: ['lex.example.'] }]);
  });
});

describe('lexroute serve --secondary', () => {
  it('is documented in serve --help', async () => {
    const io = captureIo();
    expect(await run(['serve', '--help'], io)).toBe(0);
    expect(io.stdout()).toContain('--secondary ZONE=ADDR:PORT[,key NAME]');
  });

  it('needs --state-dir (SECONDARY_STATE_DIR, exit 1)', async () => {
    const io = captureIo();
    const argv = [
      'serve',
      '--listen',
      '127.0.0.1:0',
      '--secondary',
      'example.=127.0.0.1:9',
      '--json',
    ];
    expect(await run(argv, io)).toBe(1);
    expect(io.stderr()).toContain('SECONDARY_STATE_DIR');
  });

  it('names an undefined key (TSIG_KEY_UNKNOWN, exit 1)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-secondary-cli-'));
    try {
      const io = captureIo();
      const argv = [
        'serve',
        '--listen',
        '127.0.0.1:0',
        '--state-dir',
        dir,
        '--secondary',
        'example.=127.0.0.1:9 key nokey',
        '--json',
      ];
      expect(await run(argv, io)).toBe(1);
      expect(io.stderr()).toContain('TSIG_KEY_UNKNOWN');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('catalog zones consumed (secondaryCatalogs, serve --secondary-catalog)', () => {
  it('the config reads {origin, primaries}; a catalog that is also a zone, or bad, is named', () => {
    const { config, errors } = validateServerConfig({
      secondaryCatalogs: [{ origin: 'Cat.Example', primaries: ['192.0.2.1:53 key k'] }],
    });
    expect(errors).toEqual([]);
    expect(config.secondaryCatalogs).toEqual([
      { origin: 'cat.example.', primaries: [{ host: '192.0.2.1', port: 53, key: 'k' }] },
    ]);
    const bad = validateServerConfig({
      zones: [{ origin: 'z.example.', primaries: ['192.0.2.1:53'] }],
      secondaryCatalogs: [
        { origin: 'z.example', primaries: ['192.0.2.1:53'] },
        { origin: 'c.example.', primaries: [] },
        'c.example.',
        { origin: 'd.example.', primaries: ['192.0.2.1:53'], group: 'x' },
      ],
    });
    expect(bad.errors.map((e) => [e.code, e.path])).toEqual([
      ['CONFIG_BAD_ZONES', 'secondaryCatalogs[0].origin'],
      ['CONFIG_BAD_ZONES', 'secondaryCatalogs[1].primaries'],
      ['CONFIG_BAD_ZONES', 'secondaryCatalogs[2]'],
      ['CONFIG_BAD_ZONES', 'secondaryCatalogs[3]'],
    ]);
    expect(validateServerConfig({ secondaryCatalogs: 'x' }).errors[0]?.path).toBe(
      'secondaryCatalogs',
    );
  });

  it('--secondary-catalog gathers the primaries of a catalog and replaces the default zone folder', () => {
    const config = serveFlags({
      'secondary-catalog': ['Cat.Example=192.0.2.1:53,key k', 'cat.example.=192.0.2.2:53'],
    } as ServeValues).over(DEFAULT_SERVER_CONFIG);
    expect(config.zones).toEqual([]);
    expect(config.secondaryCatalogs).toEqual([
      {
        origin: 'cat.example.',
        primaries: [
          { host: '192.0.2.1', port: 53, key: 'k' },
          { host: '192.0.2.2', port: 53 },
        ],
      },
    ]);
  });

  it.each(['cat.example.', 'cat.example.=ns.example:53', 'bad cat=127.0.0.1:53'])(
    '--secondary-catalog %s is a usage error (exit 2)',
    async (value) => {
      const io = captureIo();
      expect(await run(['serve', '--secondary-catalog', value], io)).toBe(2);
      expect(io.stderr()).toContain('--secondary-catalog');
    },
  );

  it('is in serve --help and needs --state-dir (SECONDARY_STATE_DIR, exit 1)', async () => {
    const help = captureIo();
    expect(await run(['serve', '--help'], help)).toBe(0);
    expect(help.stdout()).toContain('--secondary-catalog CATALOG=ADDR:PORT[,key NAME]');
    const io = captureIo();
    const argv = ['serve', '--listen', '127.0.0.1:0', '--secondary-catalog', 'c.=127.0.0.1:9'];
    expect(await run([...argv, '--json'], io)).toBe(1);
    expect(io.stderr()).toContain('SECONDARY_STATE_DIR');
  });
});
