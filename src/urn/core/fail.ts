/**
 * Internal early exit of the parsers: a `UrnFailure` thrown inside a parse is
 * always caught by its public function and returned as a value. A plain
 * object (no stack capture).
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
