/** Checks of single configuration values shared by the config readers. */

/** Where a check reports a problem (`ConfigError`, zone-transfer's `Problem`). */
interface Problems {
  push(p: { code: string; path: string; message: string }): unknown;
}

/** One of `words`: `fallback` when absent; CONFIG_BAD_ENUM naming `path` otherwise. */
export function enumIn<T extends string, F>(
  errors: Problems,
  path: string,
  v: unknown,
  words: readonly T[],
  fallback: F,
): T | F {
  if (v === undefined) return fallback;
  if (words.includes(v as T)) return v as T;
  errors.push({
    code: 'CONFIG_BAD_ENUM',
    path,
    message: `${path} must be one of ${words.join(', ')}`,
  });
  return fallback;
}
