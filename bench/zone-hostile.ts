/**
 * Hostile zone sources (issue 21 items 1-3): time and peak RSS of
 * `lexroute zone check` on
 *   - a one-line comment of 4, 16 and 64 MB (the entry limit raised so the
 *     whole line is read: the time per MB must stay flat, i.e. linear),
 *   - `$INCLUDE /dev/zero` (with `--include-dir /dev` in this build, so that
 *     the device check refuses it, not the directory rule),
 *   - a FIFO as the zone file (it must be refused at once, not wait for a writer),
 * each in a child process under a 2 GiB data limit (prlimit) and a 60 s
 * timeout, for this checkout and, with --baseline DIR, for another checkout
 * (e.g. `git archive <commit> | tar -x -C DIR` with a node_modules link), side
 * by side.
 *
 *   node_modules/.bin/node bench/zone-hostile.ts [--baseline DIR] [--sizes 4,16,64]
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { baseline: { type: 'string' }, sizes: { type: 'string', default: '4,16,64' } },
});
const sizes = values.sizes!.split(',').map(Number);
const here = resolve(import.meta.dirname, '..');
const ZONE = `$TTL 3600
@ IN SOA ns host 1 3600 600 86400 300
@ IN NS ns
ns IN A 192.0.2.1
`;

interface Figure {
  readonly seconds: number;
  readonly rssMiB: number;
  readonly outcome: string;
}

/** Run `zone check` of a checkout under limits; wall time, peak RSS (GNU time) and the outcome. */
function check(root: string, file: string, extra: string[]): Figure {
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%M',
      'prlimit',
      `--data=${2 ** 31}`,
      process.execPath,
      join(root, 'bin/lexroute.js'),
      'zone',
      'check',
      ...extra,
      file,
    ],
    { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 26 },
  );
  const seconds = (performance.now() - t0) / 1000;
  const rss = Number(/(\d+)\s*$/.exec(r.stderr ?? '')?.[1] ?? 0) / 1024;
  const code = /\b(ZONE_[A-Z_]+)/.exec(r.stdout ?? '')?.[1];
  const outcome =
    r.signal === 'SIGTERM' || r.error
      ? 'timeout (60 s)'
      : r.status === 0
        ? 'loaded'
        : code
          ? `exit ${r.status} ${code}`
          : `exit ${r.status} ${
              (r.stderr ?? '')
                .split('\n')
                .find((l) => /Error|memory/i.test(l))
                ?.slice(0, 60) ?? ''
            }`;
  return { seconds, rssMiB: rss, outcome };
}

const dir = mkdtempSync(join(tmpdir(), 'lexroute-hostile-bench-'));
try {
  const cases: { name: string; file: string }[] = [];
  for (const mb of sizes) {
    const f = join(dir, `comment${mb}.test.zone`);
    writeFileSync(f, `${ZONE}; ${'x'.repeat(mb << 20)}\n`);
    cases.push({ name: `${mb} MB one-line comment`, file: f });
  }
  const zero = join(dir, 'zero.test.zone');
  writeFileSync(zero, `${ZONE}$INCLUDE /dev/zero\n`);
  cases.push({ name: '$INCLUDE /dev/zero', file: zero });
  const fifo = join(dir, 'fifo.test.zone');
  execFileSync('mkfifo', [fifo]);
  cases.push({ name: 'FIFO as the zone file', file: fifo });

  // The entry limit and --include-dir exist only in this build.
  const roots: [string, string, string[]][] = [
    ['this checkout', here, ['--max-entry-chars', String(1 << 28), '--include-dir', '/dev']],
  ];
  if (values.baseline) roots.push(['baseline', resolve(values.baseline), []]);
  console.log(
    `zone check under prlimit --data=2GiB, timeout 60 s (entry limit raised to 256 Mi chars)`,
  );
  for (const c of cases) {
    const row = roots.map(([label, root, extra]) => {
      const f = check(root, c.file, extra);
      return `${label}: ${f.seconds.toFixed(2)} s, ${f.rssMiB.toFixed(0)} MiB, ${f.outcome}`;
    });
    console.log(`${c.name.padEnd(26)} ${row.join(' | ')}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
