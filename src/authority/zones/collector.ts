/**
 * A full collection of the calling thread's heap a little after a zone hand-over, where nothing
 * else prompts one (the load thread; threads serving shared columns, which are in no heap):
 * without it replaced versions stayed in memory. V8's own (`--expose-gc`, in a fresh `vm` context).
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The thread's full collection (undefined if refused); `giveBack`: last resort, pages returned. */
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
 * One full collection once this thread is idle: checked every IDLE_CHECK_MS, it runs after the
 * first interval busy less than IDLE_UTILIZATION, or after IDLE_CHECKS anyway. Enough for V8's
 * memory reducer to give the pages of a large start or transfer back.
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
 * A function that schedules one collection `ms` after its first call (one scheduled is kept), off
 * the hand-over itself; with `busy`, it waits while loads keep coming (at most `waits` times).
 */
export function collectorAfter(ms: number, busy?: () => boolean, waits = BUSY_WAITS): () => void {
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
