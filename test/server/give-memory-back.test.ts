/**
 * `giveMemoryBack` (zones/collector.ts): the collection run after a first
 * load of thousands of zones returns the pages of the garbage it frees, so
 * the heap the thread holds shrinks, even where the survivors are spread
 * over every page (a plain full collection keeps such pages); and
 * `collectWhenIdle`, the plain collection after a start, runs once the
 * thread idles.
 */
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { collectWhenIdle, giveMemoryBack } from '../../src/authority/zones/collector.ts';

/**
 * About 60 MB of small objects, of which one in 50 is returned: the rest is
 * garbage on pages that each keep a few live objects, so only a collection
 * that compacts can give those pages back.
 */
function sparseSurvivors(): { a: number; b: string }[] {
  const chunks: { a: number; b: string }[][] = [];
  for (let i = 0; i < 300; i++) {
    const chunk: { a: number; b: string }[] = [];
    for (let j = 0; j < 4000; j++) chunk.push({ a: j, b: `s${i}-${j}` });
    chunks.push(chunk);
  }
  return chunks.flatMap((chunk) => chunk.filter((_, j) => j % 50 === 0));
}

describe('giveMemoryBack', () => {
  it('returns the pages of freed garbage: the heap held shrinks', () => {
    const sparse = sparseSurvivors();
    const before = getHeapStatistics().total_heap_size;
    giveMemoryBack();
    const after = getHeapStatistics().total_heap_size;
    expect(sparse.length).toBe(24_000);
    expect(before - after).toBeGreaterThan(20 * 1024 * 1024);
  });

  it('collects once the thread is idle after a start (collectWhenIdle)', async () => {
    const holder: { garbage?: unknown[] } = {
      garbage: Array.from({ length: 400_000 }, (_, i) => ({ i, s: `g${i}` })),
    };
    const before = getHeapStatistics().used_heap_size;
    delete holder.garbage;
    collectWhenIdle();
    // The event loop idles here: the first check (100 ms) finds it so.
    await new Promise((r) => setTimeout(r, 400));
    const after = getHeapStatistics().used_heap_size;
    expect(holder.garbage).toBeUndefined();
    expect(before - after).toBeGreaterThan(20 * 1024 * 1024);
  });
});
