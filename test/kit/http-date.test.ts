/** The HTTP Date header's value of the raw HTTP paths (`core/kit/http-date.ts`). */
import { describe, expect, it } from 'vitest';
import { HttpDate } from '../../src/kit/core/http-date.ts';

describe('HttpDate', () => {
  it('formats IMF-fixdate as node:http does, once per second', () => {
    const d = new HttpDate();
    expect(d.at(0)).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
    expect(d.at(1_795_651_199_999)).toBe(new Date(1_795_651_199_000).toUTCString());
    // Within one second the same text, even for a later millisecond.
    expect(d.at(1_795_651_199_000)).toBe(d.at(1_795_651_199_999));
    expect(d.at(1_795_651_200_000)).toBe('Thu, 26 Nov 2026 00:00:00 GMT');
  });
});
