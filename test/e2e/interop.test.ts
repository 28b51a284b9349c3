/**
 * Interoperability: the same sample zones served by BIND 9 (both servers), and
 * by NSD (first server) with Knot DNS (second server), instead of lexroute,
 * give the same resolutions, key by key; and Unbound as a recursive resolver
 * in front of the lexroute servers (stub zones on loopback) gives them too,
 * to the library and to `lexroute resolve --server`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDevChain } from '../../src/dev/chain.ts';
import { freePortOnAll } from '../../src/dev/ports.ts';
import { run } from '../../src/cli/main.ts';
import { resolveLexUrn } from '../../src/client/resolve.ts';
import { captureIo } from '../helpers/io.ts';
import { toolOrSkip } from '../helpers/tools.ts';
import { startBind, startKnot, startNsd, startUnbound, type Daemon } from './daemons.ts';
import { EXPECTED, outcome, servedZones, startSampleChain, type Outcome } from './helpers.ts';

/** Sample URNs plus failures: the outcomes must agree on those too. */
const URNS = [
  ...Object.keys(EXPECTED),
  'URN:LEX:BR;SAO.PAULO:ESTADUAL:LEI:1998-12-30;10177',
  'urn:lex:de:stadt.m%C3%BCnchen:rundschreiben:2020-01-01;1',
  'urn:lex:fr:etat:loi:2004-05-15;106',
  'urn:lex:eu;ecb:governing.council:decision:2000-01-01;1',
  'urn:lex:it:stato:legge:1999-01-01;1',
];

let chain: RunningDevChain;
/** The outcomes with lexroute serving the zones: the reference for the others. */
const reference = new Map<string, Outcome>();

beforeAll(async () => {
  chain = await startSampleChain();
  for (const urn of URNS)
    reference.set(urn, await outcome(urn, { root: chain.root, timeoutMs: 1000 }));
});
afterAll(async () => chain?.close());

it('the reference outcomes are the expected ones', () => {
  for (const [urn, want] of Object.entries(EXPECTED)) {
    expect(reference.get(urn), urn).toMatchObject({ ok: true, urls: [want.url], keys: want.keys });
  }
  expect(reference.get('urn:lex:fr:etat:loi:2004-05-15;106')?.code).toBe('DNS_NXDOMAIN');
  expect(reference.get('urn:lex:it:stato:legge:1999-01-01;1')?.code).toBe('HTTP_NOT_FOUND');
});

function stripMessage(o: Outcome): Outcome {
  const { message: _m, ...rest } = o;
  return rest;
}

async function compare(options: Parameters<typeof outcome>[1]): Promise<void> {
  for (const urn of URNS) {
    const o = await outcome(urn, options);
    expect(stripMessage(o), urn).toEqual(stripMessage(reference.get(urn)!));
  }
}

// BIND listens only on addresses configured on an interface, and Linux puts
// only 127.0.0.1 on lo (the kernel still accepts binds to all of 127/8, which
// is what lexroute, NSD and Knot do). So BIND takes the first server's place,
// and, in a second set-up, serves every zone alone.
describe('BIND 9 (127.0.0.1) with Knot DNS (127.0.0.2) serving the zones', () => {
  const named = toolOrSkip('named');
  const knotd = toolOrSkip('knotd');
  const daemons: Daemon[] = [];
  beforeAll(async () => {
    if (!named.path || !knotd.path) return;
    const port = await freePortOnAll(['127.0.0.1', '127.0.0.2']);
    const [first, second] = servedZones(chain);
    daemons.push(await startBind(named.path, first!.host, port, first!.zones));
    daemons.push(await startKnot(knotd.path, second!.host, port, second!.zones));
  }, 30_000);
  afterAll(async () => {
    for (const d of daemons) await d.close();
  });
  it.skipIf(!named.path || !knotd.path)(
    `gives the same resolutions from the root, referrals from BIND ${named.skipReason ?? knotd.skipReason ?? ''}`,
    async () => {
      const root = `127.0.0.1:${daemons[0]!.port}`;
      await compare({ root, timeoutMs: 1000 });
      // The chain crossed servers: BIND referred lex.sao-paulo.gov.br to Knot.
      const r = await resolveLexUrn('urn:lex:br;sao.paulo:estadual:lei:1998-12-30;10177', { root });
      const step = r.trace.steps.find(
        (s) => s.kind === 'naptr' && s.key === 'lex.sao-paulo.gov.br.',
      );
      expect(step?.kind === 'naptr' && step.server).toBe(`127.0.0.2:${daemons[1]!.port}`);
      expect(step?.kind === 'naptr' && step.referrals?.[0]).toMatchObject({
        server: root,
        fromGlue: true,
      });
    },
  );
});

describe('BIND 9 serving every zone on 127.0.0.1', () => {
  const named = toolOrSkip('named');
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    if (!named.path) return;
    const port = await freePortOnAll(['127.0.0.1']);
    const zones = servedZones(chain).flatMap((s) => s.zones);
    daemon = await startBind(named.path, '127.0.0.1', port, zones);
  }, 30_000);
  afterAll(async () => daemon?.close());
  it.skipIf(!named.path)(
    `gives the same resolutions from the root ${named.skipReason ?? ''}`,
    async () => {
      await compare({ root: `127.0.0.1:${daemon!.port}`, timeoutMs: 1000 });
    },
  );
});

describe('NSD (127.0.0.1) and Knot DNS (127.0.0.2) serving the zones', () => {
  const nsd = toolOrSkip('nsd');
  const knotd = toolOrSkip('knotd');
  const daemons: Daemon[] = [];
  beforeAll(async () => {
    if (!nsd.path || !knotd.path) return;
    const port = await freePortOnAll(['127.0.0.1', '127.0.0.2']);
    const [first, second] = servedZones(chain);
    daemons.push(await startNsd(nsd.path, first!.host, port, first!.zones));
    daemons.push(await startKnot(knotd.path, second!.host, port, second!.zones));
  }, 30_000);
  afterAll(async () => {
    for (const d of daemons) await d.close();
  });
  it.skipIf(!nsd.path || !knotd.path)(
    `gives the same resolutions from the root ${nsd.skipReason ?? knotd.skipReason ?? ''}`,
    async () => {
      await compare({ root: `127.0.0.1:${daemons[0]!.port}`, timeoutMs: 1000 });
    },
  );
});

describe('Unbound in front of the lexroute servers (stub zones)', () => {
  const unbound = toolOrSkip('unbound');
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    if (!unbound.path) return;
    const port = await freePortOnAll(['127.0.0.1']);
    const stubs = chain.dns.flatMap((d) =>
      d.origins.map((origin) => ({ origin, host: d.host, port: d.port })),
    );
    daemon = await startUnbound(unbound.path, port, stubs, 'lex.urn.arpa.');
  }, 30_000);
  afterAll(async () => daemon?.close());

  it.skipIf(!unbound.path)(
    `resolveLexUrn with servers=[unbound] gives the same resolutions ${unbound.skipReason ?? ''}`,
    async () => {
      await compare({ servers: [`127.0.0.1:${daemon!.port}`], timeoutMs: 2000 });
    },
  );

  it.skipIf(!unbound.path)(
    'lexroute resolve --server <unbound> --json, for every sample URN',
    async () => {
      for (const [urn, want] of Object.entries(EXPECTED)) {
        const io = captureIo();
        const code = await run(
          ['resolve', '--server', `127.0.0.1:${daemon!.port}`, '--json', urn],
          io,
        );
        expect(code, `${urn}: ${io.stderr()}`).toBe(0);
        expect(JSON.parse(io.stdout()), urn).toMatchObject({ ok: true, urls: [want.url] });
      }
    },
  );
});
