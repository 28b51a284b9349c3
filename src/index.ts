/**
 * lexroute library entry point. Each area adds its public exports here.
 */
export type { Diagnostic, Result, Severity, Span } from './core/diagnostics.ts';
export type {
  ResourceRecord,
  RRset,
  SourcePosition,
  Zone,
  ZoneDiagnostic,
  ZoneNode,
} from './core/zone/model.ts';
