/**
 * A full collection of the calling thread's heap, run a little after a zone
 * hand-over (issue 20). Two places need one, because nothing else prompts it:
 *
 * - the zone-load thread (`worker.ts`): `serve` counts ArrayBuffers in V8's
 *   global heap limit (`countBuffersInHeapLimit`), and then nothing collects
 *   the buffers a load leaves behind there (the columns' earlier, smaller
 *   copies, about half a zone's size): that thread keeps few JavaScript
 *   objects, so its heap never reaches a limit, and a server reloading a
 *   1,000,000-record zone grew by 70-90 MB per reload;
 * - every thread that serves columns on SharedArrayBuffers (`serve
 *   --workers N`, or transfers or a serial policy configured): V8 counts
 *   shared memory in no thread's heap, so a replaced version stayed until
 *   each thread happened to run a full collection, and `--workers 2` grew
 *   from 460 MB to 2,076 MB over 6 reloads of that zone.
 *
 * The collection is V8's own (`--expose-gc`, set for the process, read in a
 * fresh `vm` context, so no global changes): about 10 ms on the load thread,
 * a few ms on an answering thread's small heap; the buffers themselves are
 * freed by V8's background threads.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The thread's full collection, or undefined where the runtime refuses it.
 * With `giveBack`, V8's "last resort" flavour: collected until nothing more
 * is freed, the old generation compacted and the young one shrunk, so the
 * pages freed go back to the system (a plain full collection leaves them
 * mapped for the heap to grow into again). It costs a few times the CPU of
 * a plain one.
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

/**
 * One full collection now that gives the freed memory back to the system
 * (`ownCollector(true)`): for a thread that has just made much garbage and
 * will not make it again soon: the answering thread and the zone-load
 * thread after a first load of thousands of zones.
 */
export function giveMemoryBack(): void {
  ownCollector(true)?.();
}

/**
 * A function that schedules one collection `ms` from its first call. A
 * collection already scheduled is kept (hand-overs in a row are collected at
 * most `ms` after the first of them), so the delay is bounded even when
 * reloads follow each other. The delay keeps it off the hand-over itself:
 * run at once, the load thread's collection overlapped the answering
 * thread's swap, and its GC helpers beside it made more runnable threads
 * than a 2-core machine has. With `busy`, a collection due while it says
 * true waits `ms` more, up to BUSY_WAITS times: a start of thousands of
 * small zones is one long run of loads, and a full collection in the middle
 * of it stops them all (each 10-170 ms on the load thread); it runs once
 * they end.
 */
export function collectorAfter(ms: number, busy?: () => boolean): () => void {
  const collect = ownCollector();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const at = (waits: number) => {
    timer = setTimeout(() => {
      if (busy?.() && waits < BUSY_WAITS) return at(waits + 1);
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
