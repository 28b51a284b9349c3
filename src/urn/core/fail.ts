/**
 * Internal early exit of the parsers. A `UrnFailure` is thrown inside a parse
 * and always caught by the public function that started it, which returns
 * the diagnostic as a value: nothing escapes to callers. It is a plain object
 * (no stack capture), so rejecting bad input stays cheap.
 */
import type { UrnCode } from './codes.ts';
import type { UrnDiagnostic } from './types.ts';

export class UrnFailure {
  readonly diagnostic: UrnDiagnostic;
  constructor(diagnostic: UrnDiagnostic) {
    this.diagnostic = diagnostic;
  }
}

export function diag(
  code: UrnCode,
  message: string,
  start: number,
  end: number,
  severity: 'error' | 'warning' = 'error',
): UrnDiagnostic {
  return { code, message, severity, span: { start, end } };
}

export function fail(code: UrnCode, message: string, start: number, end: number): never {
  throw new UrnFailure(diag(code, message, start, end));
}
