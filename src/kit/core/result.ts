/**
 * The one failure shape of the core: a function that can fail on its input
 * returns a `Result<T, E>` and never throws for bad input; `E` carries a
 * stable `code` from its part's code table (ARCHITECTURE.md, "Failure model").
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

/** A failure with just a code and a message. */
export function fail<C extends string>(code: C, message: string): Err<Failure<C>> {
  return { ok: false, error: { code, message } };
}
