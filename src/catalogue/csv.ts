/**
 * CSV as RFC 4180 writes it: comma-separated fields, fields quoted with `"`
 * when they hold a comma, quote or line break, `""` for a quote inside a
 * quoted field. Records may span lines inside quotes; CRLF or LF.
 */

export type CsvParse =
  | { readonly kind: 'record'; readonly fields: string[] }
  /** The text ends inside a quoted field: append the next line and parse again. */
  | { readonly kind: 'incomplete' }
  | {
      readonly kind: 'error';
      readonly code: string;
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
