import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.ts';
import { captureIo } from './helpers/io.ts';

describe('lexroute CLI', () => {
  it('prints help listing every command and exits 0 with --help', async () => {
    const io = captureIo();
    expect(await run(['--help'], io)).toBe(0);
    for (const c of ['urn', 'zone', 'serve', 'resolve', 'resolver', 'catalogue', 'dev']) {
      expect(io.stdout()).toMatch(new RegExp(`^  ${c} `, 'm'));
    }
  });

  it('exits 2 on an unknown command and names it', async () => {
    const io = captureIo();
    expect(await run(['frobnicate'], io)).toBe(2);
    expect(io.stderr()).toContain("unknown command 'frobnicate'");
  });

  it('exits 2 with help when no command is given', async () => {
    const io = captureIo();
    expect(await run([], io)).toBe(2);
    expect(io.stdout()).toContain('Usage: lexroute <command>');
  });
});
