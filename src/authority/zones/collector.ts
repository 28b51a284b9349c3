/**
 * A full collection of the calling thread's heap, a little after a zone
 * hand-over, where nothing else prompts one: the zone-load thread (buffers
 * counted in the global heap limit, while its JavaScript heap stays small),
 * and every thread serving columns on SharedArrayBuffers (shared memory is
 * in no thread's heap): without it, replaced versions stayed in memory. The
 * collection is V8's own (`--expose-gc`, read in a fresh `vm` context).
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The thread's full collection, or undefined where the runtime refuses it.
 * With `giveBack`, V8's "last resort" flavour (compacted, young generation
 * shrunk), so freed pages go back to the system, at a few times the CPU.
 */
function ownCollector(giveBack = false): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc !== 'function') return undefined;
    if (!giveBack) return () => void gc();
    return () => void gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  } catch {
    return undefined;
  }
}

/** One full collection now that gives freed memory back, for a thread done making much garbage. */
export function giveMemoryBack(): void {
  ownCollector(true)?.();
}

/**
 * One full collection once this thread is idle (`collectorAfter`): checked
 * every IDLE_CHECK_MS, it runs after the first interval in which the event
 * loop was busy less than IDLE_UTILIZATION of the time, or after
 * IDLE_CHECKS intervals anyway. For the garbage of a start over thousands of
 * zones, or of a secondary's whole transfer of a large zone: a plain collection (80 ms over 10,000 zones) is enough for V8's
 * memory reducer to compact and give the pages back over the next seconds
 * (VmRSS 204 MB one second after, 160 MB after ten), as `giveMemoryBack`
 * did at once but in 230 ms, before the server listened.
 */
export function collectWhenIdle(): void {
  collectorAfter(IDLE_CHECK_MS, eventLoopBusy(IDLE_UTILIZATION), IDLE_CHECKS - 1)();
}

/** True when the event loop was busy at least `share` of the time since the previous call (or since made). */
function eventLoopBusy(share: number): () => boolean {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return busy >= share;
  };
}

const IDLE_CHECK_MS = 100;
const IDLE_UTILIZATION = 0.25;
const IDLE_CHECKS = 50;

/**
 * A function that schedules one collection `ms` from its first call (one
 * already scheduled is kept, so the delay is bounded), off the hand-over
 * itself, where it would compete with the answering thread's swap. With
 * `busy`, a due collection waits while loads keep coming (up to `waits`
 * times), so it does not stop a long run of loads in its middle.
 */
export function collectorAfter(
  ms: number,
  busy?: () => boolean,
  waits = BUSY_WAITS,
): () => void {
  const collect = ownCollector();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const at = (n: number) => {
    timer = setTimeout(() => {
      if (busy?.() && n < waits) return at(n + 1);
      timer = undefined;
      collect!();
    }, ms);
    timer.unref();
  };
  return () => {
    if (collect === undefined || timer !== undefined) return;
    at(0);
  };
}

/** How many times a collection waits for a busy thread (`collectorAfter`) before it runs anyway. */
const BUSY_WAITS = 20;

/** How long after a hand-over the collection runs. */
export const COLLECT_AFTER_MS = 500;
