/**
 * The HTTP `Date` value (IMF-fixdate, RFC 9110 section 5.6.7) as node:http
 * writes it, formatted at most once a second. The caller gives the time.
 */
export class HttpDate {
  private second = -1;
  private text = '';

  /** The header value for the time `ms` (milliseconds since the epoch). */
  at(ms: number): string {
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      this.second = second;
      this.text = new Date(second * 1000).toUTCString();
    }
    return this.text;
  }
}
