/**
 * Build canonical expression and manifestation URNs from canonical parts
 * (the normaliser's), joined with the RFC 9676 section 8 separators.
 */
import type { ExpressionKey, ManifestationKey } from './model.ts';

/** The expression URN; the work URN itself for the unversioned expression. */
export function expressionUrn(workUrn: string, e: ExpressionKey | null): string {
  if (e === null || e.version === null) return workUrn;
  return e.language === null ? `${workUrn}@${e.version}` : `${workUrn}@${e.version}:${e.language}`;
}

/** The manifestation URN; the expression URN itself for the generic manifestation (no parts). */
export function manifestationUrn(exprUrn: string, m: ManifestationKey | null): string {
  if (m === null || (m.editor === null && m.format === null)) return exprUrn;
  const parts = [m.editor ?? '', m.format ?? ''];
  if (m.component !== null || m.feature !== null) parts.push(m.component ?? '');
  if (m.feature !== null) parts.push(m.feature);
  return `${exprUrn}$${parts.join(':')}`;
}

export const EMPTY_MANIFESTATION: ManifestationKey = {
  editor: null,
  format: null,
  component: null,
  feature: null,
};
