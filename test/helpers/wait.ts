/**
 * Wait until `f` gives a value (not undefined), asking every `everyMs`;
 * throws "timed out waiting for <what>" after `ms`.
 */
export async function waitFor<T>(
  what: string,
  f: () => T | undefined | Promise<T | undefined>,
  ms = 20_000,
  everyMs = 25,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
