/**
 * Master-file tokenizer (RFC 1035 section 5.1: parentheses, `;` comments,
 * quotes, `\X`, `\DDD`): one pass over the char codes, grouping tokens into
 * entries. A token is a [start, end) range with a line, a column and flags.
 */

import type { ZoneCode } from './codes.ts';

export const TOKEN_QUOTED = 1;
export const TOKEN_ESCAPED = 2;

export interface LexDiagnostic {
  readonly code: ZoneCode;
  readonly message: string;
  readonly line: number;
  readonly column: number;
  readonly token: string;
}

/** A `; expect ...` comment directive seen by the lexer. */
export interface ExpectComment {
  readonly line: number;
  readonly column: number;
  /** Text after `expect`, trimmed. */
  readonly text: string;
}

export class Lexer {
  readonly text: string;
  private pos = 0;
  private line = 1;
  private lineStart = 0;
  /** Token ranges of the current entry. */
  starts = new Int32Array(64);
  ends = new Int32Array(64);
  lines = new Int32Array(64);
  cols = new Int32Array(64);
  flags = new Uint8Array(64);
  count = 0;
  /** The current entry began with white space (blank owner). */
  blankOwner = false;
  /** Line of the current entry's first character. */
  entryLine = 0;
  readonly diagnostics: LexDiagnostic[] = [];
  readonly expects: ExpectComment[] = [];

  /** False when more text follows: an entry cut by the end is left for the next piece. */
  private readonly final: boolean;

  constructor(text: string, startLine = 1, final = true) {
    this.text = text;
    this.line = startLine;
    this.final = final;
    // A leading byte-order mark is not part of the zone.
    if (startLine === 1 && text.charCodeAt(0) === 0xfeff) {
      this.pos = 1;
      this.lineStart = 1;
    }
  }

  /** The unread text (an entry cut by the end of a non-final piece), starting at a line start. */
  rest(): string {
    return this.text.slice(this.pos);
  }

  /** Line number of the next unread line. */
  get nextLine(): number {
    return this.line;
  }

  private push(start: number, end: number, line: number, col: number, flags: number): void {
    if (this.count === this.starts.length) {
      const n = this.count * 2;
      const grow = <T extends Int32Array | Uint8Array>(a: T, ctor: new (n: number) => T): T => {
        const b = new ctor(n);
        b.set(a);
        return b;
      };
      this.starts = grow(this.starts, Int32Array);
      this.ends = grow(this.ends, Int32Array);
      this.lines = grow(this.lines, Int32Array);
      this.cols = grow(this.cols, Int32Array);
      this.flags = grow(this.flags, Uint8Array);
    }
    const i = this.count++;
    this.starts[i] = start;
    this.ends[i] = end;
    this.lines[i] = line;
    this.cols[i] = col;
    this.flags[i] = flags;
  }

  token(i: number): string {
    return this.text.slice(this.starts[i], this.ends[i]);
  }

  /** Token i as written (quotes included), for diagnostics. */
  raw(i: number): string {
    const t = this.token(i);
    return this.flags[i]! & TOKEN_QUOTED ? `"${t}"` : t;
  }

  private error(code: ZoneCode, message: string, line: number, column: number, token: string) {
    this.diagnostics.push({ code, message, line, column, token });
  }

  /**
   * Read the next entry with at least one token. Returns false at the end of
   * the text. Lines holding only white space and comments are skipped.
   */
  next(): boolean {
    const text = this.text;
    const n = text.length;
    for (;;) {
      this.count = 0;
      if (this.pos >= n) return false;
      let depth = 0;
      let openLine = 0;
      let openCol = 0;
      this.entryLine = this.line;
      const first = text.charCodeAt(this.pos);
      this.blankOwner = first === 0x20 || first === 0x09;
      let pos = this.pos;
      const entryStart = pos;
      const saved = {
        line: this.line,
        lineStart: this.lineStart,
        diagnostics: this.diagnostics.length,
        expects: this.expects.length,
      };
      let done = false;
      let broken = false;
      while (!done) {
        if (pos >= n) {
          if (!this.final) {
            // Cut by the end of this piece: roll back, the next piece re-reads it.
            this.pos = entryStart;
            this.line = saved.line;
            this.lineStart = saved.lineStart;
            this.diagnostics.length = saved.diagnostics;
            this.expects.length = saved.expects;
            this.count = 0;
            return false;
          }
          if (depth > 0) {
            this.error(
              'ZONE_UNCLOSED_PAREN',
              'opening parenthesis is never closed',
              openLine,
              openCol,
              '(',
            );
          }
          break;
        }
        const c = text.charCodeAt(pos);
        switch (c) {
          case 0x20: // space
          case 0x09: // tab
          case 0x0d: // CR
            pos++;
            break;
          case 0x0a: // LF
            pos++;
            this.line++;
            this.lineStart = pos;
            if (depth === 0) done = true;
            break;
          case 0x3b: {
            // ; comment to end of line
            const cstart = pos;
            let e = pos + 1;
            while (e < n && text.charCodeAt(e) !== 0x0a) e++;
            this.maybeExpect(cstart, e);
            pos = e;
            break;
          }
          case 0x28: // (
            if (depth === 0) {
              openLine = this.line;
              openCol = pos - this.lineStart + 1;
            }
            depth++;
            pos++;
            break;
          case 0x29: // )
            if (depth === 0) {
              this.error(
                'ZONE_UNBALANCED_PAREN',
                'closing parenthesis without an opening one',
                this.line,
                pos - this.lineStart + 1,
                ')',
              );
            } else depth--;
            pos++;
            break;
          case 0x22: {
            // quoted string
            const line = this.line;
            const col = pos - this.lineStart + 1;
            const start = pos + 1;
            let e = start;
            let flags = TOKEN_QUOTED;
            let closed = false;
            while (e < n) {
              const d = text.charCodeAt(e);
              if (d === 0x22) {
                closed = true;
                break;
              }
              if (d === 0x5c) {
                flags |= TOKEN_ESCAPED;
                if (e + 1 < n && text.charCodeAt(e + 1) === 0x0a) {
                  // An escaped newline is part of the string.
                  this.line++;
                  this.lineStart = e + 2;
                }
                e += 2;
                continue;
              }
              if (d === 0x0a) break;
              e++;
            }
            if (!closed && e >= n && !this.final) {
              // Cut by the end of this piece: the top of the loop rolls the entry back.
              pos = n;
              break;
            }
            if (!closed) {
              this.error(
                'ZONE_UNTERMINATED_QUOTE',
                'quoted string is not closed on its line',
                line,
                col,
                text.slice(pos, Math.min(e, pos + 40)),
              );
              // The entry is dropped once it ends (its other errors would be noise).
              broken = true;
              pos = e;
              break;
            }
            this.push(start, Math.min(e, n), line, col, flags);
            pos = e + 1;
            break;
          }
          default: {
            // word: up to white space, ; ( ) " or newline; \X escapes anything
            const start = pos;
            const line0 = this.line;
            const col0 = start - this.lineStart + 1;
            let e = pos;
            let flags = 0;
            while (e < n) {
              const d = text.charCodeAt(e);
              if (
                d === 0x20 ||
                d === 0x09 ||
                d === 0x0a ||
                d === 0x0d ||
                d === 0x3b ||
                d === 0x28 ||
                d === 0x29 ||
                d === 0x22
              )
                break;
              if (d === 0x5c) {
                flags = TOKEN_ESCAPED;
                if (e + 1 >= n && !this.final) {
                  // The escaped character is in the next piece: roll back (top of the loop).
                  e = n;
                  break;
                }
                const after = e + 1 < n ? text.charCodeAt(e + 1) : 0x0a;
                if (after === 0x0a || after === 0x0d) {
                  // A backslash cannot escape the end of the line outside quotes:
                  // as BIND and Knot, the word ends with the line and keeps the
                  // dangling backslash (which the field parser then rejects).
                  e++;
                  break;
                }
                e += 2;
                continue;
              }
              e++;
            }
            if (e > n) e = n;
            this.push(start, e, line0, col0, flags);
            pos = e;
          }
        }
      }
      this.pos = pos;
      if (!broken && this.count > 0) return true;
    }
  }

  private maybeExpect(start: number, end: number): void {
    const text = this.text;
    let p = start + 1;
    while (p < end && (text.charCodeAt(p) === 0x20 || text.charCodeAt(p) === 0x09)) p++;
    if (end - p < 7) return;
    // "expect" followed by white space
    if (!/^expect[ \t]/i.test(text.slice(p, p + 7))) return;
    this.expects.push({
      line: this.line,
      column: start - this.lineStart + 1,
      text: text.slice(p + 7, end).trim(),
    });
  }
}
