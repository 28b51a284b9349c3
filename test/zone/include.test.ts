/**
 * RFC 1035 section 5.1 $INCLUDE through the loader's file source: paths are
 * relative to the including file, the optional origin applies to the
 * included file only, and nesting is capped.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadZoneFile } from '../../src/authority/zones/load.ts';

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lexroute-include-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe('$INCLUDE', () => {
  it('reads files relative to the including file, with a scoped origin', async () => {
    const dir = tree({
      'example.zone':
        '$TTL 60\n@ SOA ns hm 1 1 1 1 1\n@ NS ns\nns A 192.0.2.1\n$INCLUDE sub/rules.inc lex.example.\nafter TXT "origin restored"\n',
      'sub/rules.inc': '@ NAPTR 100 10 "" "" "" next.example.\n$INCLUDE more.inc\n',
      'sub/more.inc': 'deep TXT "nested, relative to sub/"\n',
    });
    const r = await loadZoneFile(join(dir, 'example.zone'));
    expect(r.diagnostics).toEqual([]);
    expect(
      r.records.map(
        (x) => `${x.owner} ${x.type} ${x.source?.file.slice(dir.length)}:${x.source?.line}`,
      ),
    ).toEqual([
      'example. 6 /example.zone:2',
      'example. 2 /example.zone:3',
      'ns.example. 1 /example.zone:4',
      'lex.example. 35 /sub/rules.inc:1',
      'deep.lex.example. 16 /sub/more.inc:1',
      'after.example. 16 /example.zone:6',
    ]);
  });

  it('caps nesting (a file that includes itself)', async () => {
    const dir = tree({
      'loop.example.zone': '$TTL 60\n@ SOA ns hm 1 1 1 1 1\n$INCLUDE loop.example.zone\n',
    });
    const r = await loadZoneFile(join(dir, 'loop.example.zone'), { maxIncludeDepth: 3 });
    const codes = r.diagnostics.map((d) => d.code);
    expect(codes).toContain('ZONE_INCLUDE_DEPTH');
    expect(r.zone).toBeUndefined();
  });

  it('a missing file is an error at the $INCLUDE line; disabled includes are refused', async () => {
    const dir = tree({
      'x.example.zone': '$TTL 60\n@ SOA ns hm 1 1 1 1 1\n$INCLUDE nothere.inc\n',
    });
    const r = await loadZoneFile(join(dir, 'x.example.zone'));
    expect(r.diagnostics.find((d) => d.code === 'ZONE_INCLUDE_NOT_FOUND')?.position?.line).toBe(3);
    const off = await loadZoneFile(join(dir, 'x.example.zone'), { allowInclude: false });
    expect(off.diagnostics.map((d) => d.code)).toContain('ZONE_INCLUDE_DISABLED');
  });
});
