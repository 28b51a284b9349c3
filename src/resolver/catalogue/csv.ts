/**
 * CSV as RFC 4180 writes it: comma-separated fields, fields quoted with `"`
 * when they hold a comma, quote or line break, `""` for a quote inside a
 * quoted field. Records may span lines inside quotes; CRLF or LF.
 */
import type { CatalogueCode } from './codes.ts';

export type CsvParse =
  | { readonly kind: 'record'; readonly fields: string[] }
  /** The text ends inside a quoted field: append the next line and parse again. */
  | { readonly kind: 'incomplete' }
  | {
      readonly kind: 'error';
      readonly code: CatalogueCode;
      readonly message: string;
      readonly column: number;
    };

/** Parse one record from `text` (one or more physical lines joined with `\n`, without the final newline). */
export function parseCsvRecord(text: string): CsvParse {
  const fields: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    if (i < n && text.charCodeAt(i) === 0x22) {
      // Quoted field.
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) return { kind: 'incomplete' };
        value += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 0x22) {
          value += '"';
          j = q + 2;
          continue;
        }
        j = q + 1;
        break;
      }
      fields.push(value);
      i = j;
      if (i === n) return { kind: 'record', fields };
      if (text.charCodeAt(i) !== 0x2c) {
        return {
          kind: 'error',
          code: 'CSV_BAD_QUOTE',
          message: 'a quoted field must be followed by a comma or the end of the line',
          column: i + 1,
        };
      }
      i++;
      continue;
    }
    const comma = text.indexOf(',', i);
    const end = comma < 0 ? n : comma;
    const value = text.slice(i, end);
    const quote = value.indexOf('"');
    if (quote >= 0) {
      return {
        kind: 'error',
        code: 'CSV_BAD_QUOTE',
        message: 'a quote inside an unquoted field (quote the whole field and double the quote)',
        column: i + quote + 1,
      };
    }
    fields.push(value);
    if (comma < 0) return { kind: 'record', fields };
    i = comma + 1;
  }
}

/** Format one record, quoting only where needed. */
export function formatCsvRecord(fields: readonly string[]): string {
  return fields
    .map((f) => (/[",\r\n]/.test(f) || /^\s|\s$/.test(f) ? `"${f.replaceAll('"', '""')}"` : f))
    .join(',');
}

/** A record (or a bad one) assembled from physical lines, with the line it starts on. */
export type CsvEvent =
  | { readonly kind: 'record'; readonly fields: string[]; readonly line: number }
  | {
      readonly kind: 'error';
      readonly code: CatalogueCode;
      readonly message: string;
      readonly column?: number;
      readonly line: number;
    };

/** Most physical lines one quoted record may span before its quote counts as unbalanced. */
export const CSV_MAX_RECORD_LINES = 200;

/**
 * Joins physical lines into records. A bad multi-line record (stray quote,
 * wrong field count, over `maxLines`, end of file) is reported at its first
 * line (CSV_UNTERMINATED) and the lines after it are read again, so good
 * rows after a stray quote are kept.
 */
export class CsvRecordReader {
  readonly #lines: { text: string; line: number }[] = [];
  /** The header's field count once known (records of another count are suspect when multi-line). */
  columns: number | null = null;
  readonly #maxLines: number;

  constructor(maxLines = CSV_MAX_RECORD_LINES) {
    this.#maxLines = maxLines;
  }

  /** Add one physical line (without its line end); records completed are pushed to `out`. */
  push(text: string, line: number, out: CsvEvent[]): void {
    if (this.#lines.length === 0 && text.trim() === '') return;
    this.#lines.push({ text, line });
    const first = this.#lines[0] as { text: string; line: number };
    const multi = this.#lines.length > 1;
    const rec = parseCsvRecord(multi ? this.#lines.map((l) => l.text).join('\n') : text);
    if (rec.kind === 'incomplete') {
      if (this.#lines.length >= this.#maxLines) this.#giveUp(out);
      return;
    }
    if (multi) {
      const wrongCount =
        rec.kind === 'record' && this.columns !== null && rec.fields.length !== this.columns;
      if (rec.kind === 'error' || wrongCount) {
        this.#giveUp(out);
        return;
      }
    }
    this.#lines.length = 0;
    out.push({ ...rec, line: first.line });
  }

  /** The end of the input: whatever is pending is reported, and its later lines read again. */
  end(out: CsvEvent[]): void {
    while (this.#lines.length > 0) this.#giveUp(out);
  }

  #giveUp(out: CsvEvent[]): void {
    const [first, ...rest] = this.#lines.splice(0);
    if (first === undefined) return;
    out.push({
      kind: 'error',
      code: 'CSV_UNTERMINATED',
      message:
        rest.length === 0
          ? 'a quoted field is not closed before the end of the file'
          : `a quoted field opened on this line is not closed properly; the ${rest.length} line${rest.length === 1 ? '' : 's'} after it ${rest.length === 1 ? 'was' : 'were'} read as rows of their own`,
      line: first.line,
    });
    for (const l of rest) this.push(l.text, l.line, out);
  }
}
