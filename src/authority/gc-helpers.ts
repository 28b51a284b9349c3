/**
 * The priority of V8's garbage-collection helper threads (issue 20).
 *
 * Node runs one pool of V8 platform threads per process (four by default,
 * `--v8-pool-size`), named `V8Worker` on Linux, shared by every isolate: the
 * answering thread's, the zone-load thread's and those of `--workers N`.
 * They do V8's concurrent marking, parallel scavenges and compaction, and
 * array-buffer sweeping. While a large zone loads, the load thread's
 * collections put up to four of them to work at once; on a machine of two
 * cores that is more runnable threads than cores, and the answering thread
 * waits for a core: answers of 10-17 ms in the middle of the load, with no
 * collection on the answering thread itself (`bench/reload.ts --timeline`,
 * beside per-thread CPU samples).
 *
 * At a nice value above the answering thread's, those helpers give way to it
 * when it wakes with queries to answer and use the cores it leaves idle
 * otherwise; nothing else changes (the scheduler still gives them every idle
 * cycle). Raising a thread's nice value needs no privilege.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

export interface HelpersNiced {
  /** The V8 platform threads found and set. */
  readonly threads: number;
  /** Why some could not be set (the first error), if any. */
  readonly error?: string;
}

/**
 * Set every `V8Worker` thread of this process to `nice` (Linux: threads are
 * tasks in /proc/self/task). Elsewhere, or with none found: `threads` 0.
 * The pool is created before any JavaScript runs, so one call at start
 * covers the process's life.
 */
export function niceGcHelpers(nice: number): HelpersNiced {
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return { threads: 0 };
  }
  let threads = 0;
  let error: string | undefined;
  for (const tid of tasks) {
    try {
      if (readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim() !== 'V8Worker') continue;
      setPriority(Number(tid), nice);
      threads++;
    } catch (e) {
      // A thread that ended meanwhile, or a system that refuses: keep going.
      error ??= (e as Error).message;
    }
  }
  return error === undefined ? { threads } : { threads, error };
}
