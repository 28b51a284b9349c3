/**
 * The one failure shape of the core (issue 19): a function that can fail on
 * its input returns a `Result<T, E>`, never throws for bad input. The failure
 * `E` carries a stable SCREAMING_SNAKE `code` from a closed union derived from
 * its area's code table (`core/<area>/codes.ts`), so the edges (the server's
 * rcode, the resolver's HTTP status, the CLI's exit code) can map every code
 * through one table typed `Record<Code, ...>` (see ARCHITECTURE.md, "Failure
 * model").
 *
 * Some public results keep older fields beside `value` / `error` (parseLexUrn's
 * `urn`, rewrite's `output` and `via`, ...) so that code reading them keeps
 * working; those fields are deprecated (CHANGELOG) and src reads only `value`
 * and `error`. Such a result is an instance of a small class whose `value` /
 * `error` are prototype getters: one object per call as before, and JSON or
 * a spread shows the older fields unchanged.
 */

/** What every failure carries: its stable code and a sentence for a person. */
export interface Failure<C extends string = string> {
  readonly code: C;
  readonly message: string;
}

export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Err<E extends { readonly code: string }> {
  readonly ok: false;
  readonly error: E;
}

/** Success with a value, or failure with a coded error. */
export type Result<T, E extends { readonly code: string } = Failure> = Ok<T> | Err<E>;

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function err<E extends { readonly code: string }>(error: E): Err<E> {
  return { ok: false, error };
}

/**
 * A failure that also keeps `code` and `message` as its own fields (the
 * shape some public results had before the one `Result`): `error` is a
 * getter, built once on first read, so `{...r}`, JSON and deep equality see
 * `ok`, `code` and `message` only, and a refusal is one object.
 */
export class CodedRefusal<C extends string> implements Err<Failure<C>> {
  readonly ok = false as const;
  /** @deprecated use `error.code`. */
  readonly code: C;
  /** @deprecated use `error.message`. */
  readonly message: string;
  #error: Failure<C> | undefined;
  constructor(code: C, message: string) {
    this.code = code;
    this.message = message;
  }
  get error(): Failure<C> {
    return (this.#error ??= { code: this.code, message: this.message });
  }
}

/** A failure with just a code and a message. */
export function fail<C extends string>(code: C, message: string): Err<Failure<C>> {
  return { ok: false, error: { code, message } };
}

/** The code of a failed result, or undefined. */
export function codeOf<E extends { readonly code: string }>(
  r: Result<unknown, E>,
): E['code'] | undefined {
  return r.ok ? undefined : r.error.code;
}
