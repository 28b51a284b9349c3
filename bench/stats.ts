/**
 * Helpers the benches share: the median of a round's figures, and URNs that
 * no earlier resolution in this process has seen (so no cache or step memo
 * can answer them).
 */

/** The median of `xs` (the mean of the middle two for an even count). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

let serial = 0;
/** `count` URNs never used before in this process (distinct AUS, so no memo can answer). */
export function freshUrns(count: number): string[] {
  return Array.from(
    { length: count },
    () => `urn:lex:br;sao.paulo:governo:decreto:2008-03-05;${100000 + serial++}`,
  );
}
