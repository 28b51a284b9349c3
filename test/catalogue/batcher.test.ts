import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/resolver/catalogue/batcher.ts';

/** A lookup over a map that answers after `delayMs`, recording each batch it was given. */
function source(delayMs: number) {
  const data = new Map(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
  const batches: string[][] = [];
  let out = 0;
  let maxOut = 0;
  const run = async (keys: readonly string[]) => {
    batches.push([...keys]);
    maxOut = Math.max(maxOut, ++out);
    await new Promise((r) => setTimeout(r, delayMs));
    out--;
    const found = new Map<string, number>();
    for (const k of keys) if (data.has(k)) found.set(k, data.get(k) as number);
    return found;
  };
  return { run, batches, maxOut: () => maxOut };
}

describe('Batcher', () => {
  it('sends the keys asked for in one turn as one batch, each distinct key once', async () => {
    const s = source(1);
    const b = new Batcher(s.run);
    const got = await Promise.all(['k1', 'k2', 'k1', 'nope', 'k3'].map((k) => b.get(k)));
    expect(got).toEqual([1, 2, 1, undefined, 3]);
    expect(s.batches).toEqual([['k1', 'k2', 'nope', 'k3']]);
    expect({ batches: b.batches, keys: b.keys }).toEqual({ batches: 1, keys: 5 });
  });

  it('under load, keys asked while maxInFlight batches are out wait and go out together', async () => {
    const s = source(20);
    const b = new Batcher(s.run, { maxInFlight: 1 });
    const first = b.get('k0');
    // Let the first batch go out, then ask for 30 more across several turns.
    await new Promise((r) => setImmediate(r));
    const rest: Promise<number | undefined>[] = [];
    for (let i = 1; i <= 30; i++) {
      rest.push(b.get(`k${i}`));
      if (i % 10 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(await first).toBe(0);
    expect(await Promise.all(rest)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(s.maxOut()).toBe(1);
    // The 30 keys asked while the first batch was out went in one second batch.
    expect(s.batches.map((x) => x.length)).toEqual([1, 30]);
  });

  it('splits a queue longer than maxBatch, and never has more than maxInFlight batches out', async () => {
    const s = source(5);
    const b = new Batcher(s.run, { maxInFlight: 2, maxBatch: 8 });
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => b.get(`k${i}`)));
    expect(got).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(s.batches.every((x) => x.length <= 8)).toBe(true);
    expect(s.batches.flat().sort()).toEqual(Array.from({ length: 40 }, (_, i) => `k${i}`).sort());
    expect(s.maxOut()).toBe(2);
  });

  it('a batch back while keys wait: the next batch is sent before its callers are answered', async () => {
    const events: string[] = [];
    const b = new Batcher<string, string>(
      async (keys) => {
        events.push(`send ${keys.join(',')}`);
        await new Promise((r) => setTimeout(r, 10));
        return new Map(keys.map((k) => [k, k.toUpperCase()]));
      },
      { maxInFlight: 1 },
    );
    const answered = (p: Promise<string | undefined>) =>
      p.then((v) => {
        events.push(`answer ${v}`);
      });
    const first = answered(b.get('a'));
    await new Promise((r) => setImmediate(r));
    const second = [answered(b.get('b')), answered(b.get('c'))];
    await Promise.all([first, ...second]);
    expect(events).toEqual(['send a', 'send b,c', 'answer A', 'answer B', 'answer C']);
    // Alone (nothing waiting), a batch's callers are answered at once.
    events.length = 0;
    await answered(b.get('d'));
    expect(events).toEqual(['send d', 'answer D']);
  });

  it('a failed batch rejects each of its keys, and the next batch is sent', async () => {
    let calls = 0;
    const b = new Batcher<string, number>(async (keys) => {
      if (calls++ === 0) throw new Error('connection lost');
      return new Map(keys.map((k) => [k, k.length]));
    });
    const failed = await Promise.allSettled([b.get('a'), b.get('bb')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await b.get('ccc')).toBe(3);
  });
});
