/**
 * The priority of V8's GC helper threads (`V8Worker`, one pool per process): at a higher nice a
 * load's collections give way to the answering thread on a small machine. Needs no privilege.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

export interface HelpersNiced {
  /** The V8 platform threads found and set. */
  readonly threads: number;
  /** Why some could not be set (the first error), if any. */
  readonly error?: string;
}

/** Set every `V8Worker` thread of this process to `nice` (Linux; elsewhere `threads` 0). The pool exists from start. */
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
