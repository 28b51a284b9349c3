/**
 * `zoneFiles.loadTimeout`: how long a background load (inline signing
 * included) may run before ZONE_LOAD_TIMEOUT. 0 picks 300 s, or 1,800 s when
 * zones are signed inline, since signing a large zone on a busy machine takes
 * minutes; an explicit value wins; out-of-range values are refused with
 * their path.
 */
import { describe, expect, it } from 'vitest';
import { validateServerConfig } from '../../src/config/server.ts';
import { loadTimeoutMs } from '../../src/authority/zones/loader.ts';
import { LOAD_TIMEOUT_MS, SIGNED_LOAD_TIMEOUT_MS } from '../../src/authority/zones/background.ts';

describe('zoneFiles.loadTimeout', () => {
  it('defaults to 0, which means 300 s plain and 1,800 s when signing', () => {
    const { config, errors } = validateServerConfig({});
    expect(errors).toEqual([]);
    expect(config.zoneFiles.loadTimeout).toBe(0);
    expect(loadTimeoutMs(0, false)).toBe(LOAD_TIMEOUT_MS);
    expect(loadTimeoutMs(0, true)).toBe(SIGNED_LOAD_TIMEOUT_MS);
    expect(LOAD_TIMEOUT_MS).toBe(300_000);
    expect(SIGNED_LOAD_TIMEOUT_MS).toBe(1_800_000);
  });

  it('takes an explicit number of seconds for both kinds of load', () => {
    const { config, errors } = validateServerConfig({ zoneFiles: { loadTimeout: 45 } });
    expect(errors).toEqual([]);
    expect(loadTimeoutMs(config.zoneFiles.loadTimeout, false)).toBe(45_000);
    expect(loadTimeoutMs(config.zoneFiles.loadTimeout, true)).toBe(45_000);
  });

  it('refuses negative, fractional and oversized values with the key named', () => {
    for (const bad of [-1, 1.5, 86_401, '60']) {
      const { errors } = validateServerConfig({ zoneFiles: { loadTimeout: bad } });
      expect(errors.map((e) => e.path)).toEqual(['zoneFiles.loadTimeout']);
    }
  });
});
