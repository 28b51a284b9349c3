/**
 * The served-serial state (issue 29): the decisions of
 * `src/xfr/core/served-state.ts`, and the warnings a start logs when the
 * serial served may be below the one secondaries hold (no state folder with
 * a serial that lexroute rewrites; a file serial below one served before).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  decodeServedState,
  encodeServedState,
  servedNow,
  signedSerial,
  signingStart,
  startWarning,
  type ServedState,
} from '../../src/xfr/core/served-state.ts';
import { serialFile } from '../../src/xfr/served-state.ts';
import { DEFAULT_SERVER_CONFIG, type ServerConfig } from '../../src/config/server.ts';
import { startServer } from '../../src/authority/server.ts';
import { eventLogger } from '../helpers/events.ts';
import { freePort } from '../server/named.ts';

const state = (o: Partial<ServedState> = {}): ServedState => ({
  origin: 'a.test.',
  serial: 11,
  hash: 'h1',
  highest: 11,
  signed: true,
  ...o,
});

describe('served state: the pure decisions', () => {
  it('reads what it writes; a file from before `highest` was kept reads its serial as the highest', () => {
    const s = state({ highest: 12 });
    const back = decodeServedState(encodeServedState(s));
    expect(back.ok && back.value).toEqual(s);
    const old = decodeServedState('{"origin":"a.test.","serial":7,"hash":"x"}');
    expect(old.ok && old.value).toEqual({
      origin: 'a.test.',
      serial: 7,
      hash: 'x',
      highest: 7,
      signed: false,
    });
  });

  it('refuses what is not a state, with SERVED_STATE_CORRUPT', () => {
    for (const text of ['{', '[]', '{"origin":"a.","serial":-1,"hash":"x"}', '{"serial":1}']) {
      const r = decodeServedState(text);
      expect(r.ok, text).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('SERVED_STATE_CORRUPT');
    }
  });

  it('the highest serial follows RFC 1982 order, across the wrap', () => {
    const wrapped = servedNow(
      state({ serial: 0xffffffff, highest: 0xffffffff }),
      'a.test.',
      3,
      'h',
      true,
    );
    expect(wrapped.highest).toBe(3);
    // A serial served below the highest (a file stepped back, policy keep) leaves the highest.
    expect(servedNow(state({ highest: 20 }), 'a.test.', 15, 'h', false).highest).toBe(20);
    expect(servedNow(undefined, 'a.test.', 15, 'h', false).highest).toBe(15);
  });

  it('signing starts from the kept version only when content, keys, serial and signatures allow', () => {
    const kept = { serial: 11, refreshAt: 2_000 };
    expect(signingStart(state(), 'h1', kept, 1_000)).toEqual({ kind: 'resume' });
    // Changed file or keys: signed past the highest served.
    expect(signingStart(state({ highest: 15 }), 'h2', kept, 1_000)).toEqual({
      kind: 'sign',
      previous: 15,
    });
    // Signatures due: signed again, past the serial served.
    expect(signingStart(state(), 'h1', kept, 3_000)).toEqual({ kind: 'sign', previous: 11 });
    // A kept version the state does not name (stopped between the two writes): past both.
    expect(signingStart(state(), 'h1', { serial: 12, refreshAt: 2_000 }, 1_000)).toEqual({
      kind: 'sign',
      previous: 12,
    });
    // Served unsigned before: signed now, as a new version.
    expect(signingStart(state({ signed: false }), 'h1', undefined, 1_000)).toEqual({
      kind: 'sign',
      previous: 11,
    });
    expect(signingStart(undefined, 'h1', undefined, 1_000)).toEqual({
      kind: 'sign',
      previous: undefined,
    });
  });

  it('a signed serial goes past the previous one whatever the file says, or takes a later file serial', () => {
    expect(signedSerial(10, 11)).toBe(12);
    expect(signedSerial(2026010100, 11)).toBe(2026010100);
    expect(signedSerial(10, undefined)).toBe(10);
    expect(signedSerial(5, 0xffffffff)).toBe(5);
    expect(signedSerial(0, 0xffffffff)).toBe(0);
  });

  it('start warnings: no folder with a rewritten serial; a serial below the highest served', () => {
    expect(startWarning(false, undefined, 10, true)).toEqual({ kind: 'no-state', serial: 10 });
    expect(startWarning(false, undefined, 10, false)).toBeUndefined();
    expect(startWarning(true, state({ highest: 50 }), 10, false)).toEqual({
      kind: 'below-served',
      serial: 10,
      highest: 50,
    });
    expect(startWarning(true, state({ highest: 50 }), 51, false)).toBeUndefined();
    expect(startWarning(true, undefined, 10, true)).toBeUndefined();
  });
});

describe('served state: what a start warns of', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lexroute-served-state-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const origin = 'warn.test.';
  const file = path.join(dir, `${origin}zone`);
  writeFileSync(
    file,
    `$ORIGIN ${origin}\n$TTL 300\n@ SOA ns1 hostmaster 10 3600 600 86400 300\n@ NS ns1\nns1 A 127.0.0.1\n`,
  );

  const startWith = async (o: Partial<ServerConfig>) => {
    const config: ServerConfig = {
      ...DEFAULT_SERVER_CONFIG,
      listen: [{ host: '127.0.0.1', port: await freePort() }],
      zones: [{ file, origin }],
      ...o,
    };
    const { log, events } = eventLogger('info');
    const server = await startServer({ config, log, cwd: dir });
    await server.close();
    return events;
  };

  it('a serial policy without a state folder: serial_not_remembered (SERIAL_NOT_REMEMBERED)', async () => {
    const events = await startWith({ serial: 'auto' });
    const w = events.find((e) => e.event === 'serial_not_remembered');
    expect(w).toMatchObject({ level: 'warn', code: 'SERIAL_NOT_REMEMBERED', zone: origin });
    const plain = await startWith({});
    expect(plain.some((e) => e.event === 'serial_not_remembered')).toBe(false);
  });

  it('a file serial below one served before: zone_serial_below_served, and the state keeps the highest', async () => {
    const stateDir = path.join(dir, 'state');
    mkdirSync(stateDir, { recursive: true });
    const served = state({ origin, serial: 50, highest: 50, hash: 'older', signed: false });
    writeFileSync(serialFile(stateDir, origin), encodeServedState(served));
    const transfer = { ...DEFAULT_SERVER_CONFIG.transfer, stateDir };
    const events = await startWith({ transfer, allowTransfer: ['127.0.0.1/32'] });
    const w = events.find((e) => e.event === 'zone_serial_below_served');
    expect(w).toMatchObject({
      level: 'warn',
      code: 'SERIAL_BELOW_SERVED',
      serial: 10,
      highest: 50,
    });
    const after = decodeServedState(readFileSync(serialFile(stateDir, origin), 'utf8'));
    expect(after.ok && [after.value.serial, after.value.highest]).toEqual([10, 50]);
  });
});
