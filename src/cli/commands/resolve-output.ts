/**
 * What `lexroute resolve` prints: a result or failure as JSON, a hand-off
 * note, and `--batch` (many URNs, bounded concurrency, one JSON line per URN
 * in input order, a progress bar on a terminal).
 */
import { createReadStream } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { createInterface } from 'node:readline';
import { ClientError } from '../../client/errors.ts';
import {
  ResolveError,
  type Handoff,
  type LexClient,
  type ResolveResult,
  type Service,
} from '../../client/resolve.ts';
import { EXIT_FAIL, EXIT_OK, type CliIo } from '../io.ts';
import { EXIT_STATUS, exitCodeOfFailure } from '../exit.ts';

/** A `P` rule handed the rest of the resolution to another protocol. */
export const EXIT_HANDOFF = EXIT_STATUS.handoff;

export interface Settings {
  readonly service: Service;
  readonly noHttp: boolean;
  readonly maxSteps: number | undefined;
  readonly fallback: boolean;
  readonly deadlineMs: number | undefined;
  readonly urlSchemes: readonly string[] | undefined;
}

export function resultJson(urn: string, r: ResolveResult, withTrace: boolean): object {
  if (r.kind === 'handoff') {
    const h = r.handoff;
    return {
      urn,
      ok: true,
      kind: 'handoff',
      urls: [],
      handoff: {
        key: h.key,
        step: h.step,
        protocol: h.protocol,
        services: h.services,
        output: h.output,
        via: h.via,
        record: h.record,
      },
      ...(withTrace ? { trace: r.trace } : {}),
    };
  }
  return {
    urn,
    ok: true,
    kind: 'resolved',
    urls: r.urls,
    resolverUrl: r.resolverUrl,
    ...(r.description ? { description: r.description } : {}),
    ...(withTrace ? { trace: r.trace } : {}),
  };
}

export function errorJson(urn: string, e: unknown, withTrace: boolean): object {
  const code = e instanceof ClientError ? e.code : 'INTERNAL';
  const message = e instanceof Error ? e.message : String(e);
  return {
    urn,
    ok: false,
    code,
    message,
    ...(withTrace && e instanceof ResolveError ? { trace: e.trace } : {}),
  };
}

export async function resolveOne(client: LexClient, urn: string, s: Settings, io: CliIo) {
  return client.resolve(urn, {
    service: s.service,
    noHttp: s.noHttp,
    ...(s.maxSteps !== undefined ? { maxSteps: s.maxSteps } : {}),
    ...(s.deadlineMs !== undefined ? { deadlineMs: s.deadlineMs } : {}),
    ...(s.urlSchemes !== undefined ? { urlSchemes: s.urlSchemes } : {}),
    fallback: s.fallback,
    signal: io.signal,
  });
}

/**
 * A rule's output as one line of text: as is, or JSON-quoted when it holds
 * control characters (zone data must not move the cursor or split the line).
 */
export function printable(text: string): string {
  return /[\u0000-\u001f\u007f-\u009f]/.test(text) ? JSON.stringify(text) : text;
}

/** What the text output says about a hand-off, on stderr (the output itself goes to stdout). */
export function handoffNote(h: Handoff): string {
  const services = h.services.length > 0 ? ` (services ${h.services.join('+')})` : '';
  return (
    `lexroute resolve: hand-off: the rule at ${h.key} (flag P) hands the rest over to ` +
    `protocol ${h.protocol}${services} with ${JSON.stringify(h.output)}; DDDS ends here ` +
    `(RFC 3404 section 4.3)\n`
  );
}

async function* lines(source: string, io: CliIo): AsyncGenerator<string> {
  const input = source === '-' ? io.stdin : createReadStream(resolvePath(io.cwd, source));
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    yield t;
  }
}

interface Tally {
  done: number;
  failed: number;
  handedOff: number;
}

function progress(io: CliIo, t: Tally, total: number, final: boolean): void {
  const width = 30;
  const frac = total === 0 ? 1 : t.done / total;
  const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
  const handoffs = t.handedOff > 0 ? `, ${t.handedOff} handed off` : '';
  io.err(
    `\r[${bar}] ${t.done}/${total} resolved, ${t.failed} failed${handoffs}${final ? '\n' : ''}`,
  );
}

export async function runBatch(
  client: LexClient,
  source: string,
  s: Settings,
  concurrency: number,
  withTrace: boolean,
  io: CliIo,
): Promise<number> {
  const urns: string[] = [];
  try {
    for await (const l of lines(source, io)) urns.push(l);
  } catch (e) {
    io.err(`lexroute resolve: cannot read ${source}: ${(e as Error).message}\n`);
    return EXIT_FAIL;
  }
  const out: (string | undefined)[] = new Array<string | undefined>(urns.length);
  let next = 0;
  let flushed = 0;
  const tally: Tally = { done: 0, failed: 0, handedOff: 0 };
  const codes = new Set<string>();
  let lastDraw = 0;
  const flush = () => {
    while (flushed < out.length && out[flushed] !== undefined) {
      io.out(`${out[flushed] as string}\n`);
      out[flushed] = '';
      flushed++;
    }
  };
  const worker = async () => {
    for (;;) {
      if (io.signal.aborted) return;
      const i = next++;
      if (i >= urns.length) return;
      const urn = urns[i] as string;
      try {
        const r = await resolveOne(client, urn, s, io);
        if (r.kind === 'handoff') tally.handedOff++;
        out[i] = JSON.stringify(resultJson(urn, r, withTrace));
      } catch (e) {
        tally.failed++;
        if (e instanceof ClientError) codes.add(e.code);
        out[i] = JSON.stringify(errorJson(urn, e, withTrace));
      }
      tally.done++;
      flush();
      if (io.errIsTTY) {
        const now = Date.now();
        if (now - lastDraw > 100 || tally.done === urns.length) {
          lastDraw = now;
          progress(io, tally, urns.length, false);
        }
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(concurrency, Math.max(1, urns.length)) }, worker),
  );
  flush();
  if (io.errIsTTY) progress(io, tally, urns.length, true);
  if (tally.failed > 0 || tally.done < urns.length) return exitCodeOfFailure(codes);
  return tally.handedOff > 0 ? EXIT_HANDOFF : EXIT_OK;
}
