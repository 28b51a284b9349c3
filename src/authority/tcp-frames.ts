/**
 * DNS-over-TCP framing (RFC 1035 section 4.2.2): a two-octet length before each message; segments
 * may split a message anywhere. An incomplete message is kept in one buffer compacted or doubled as
 * needed, so reassembly is linear in the octets received (`copied` counts them, for tests).
 */

const EMPTY = Buffer.alloc(0);
/** A buffer larger than this is dropped once it is empty (an idle connection holds nothing). */
const KEEP_BUFFER = 4096;

export class FrameReader {
  private buf: Buffer = EMPTY;
  private start = 0;
  private end = 0;
  /** Octets copied into the reassembly buffer so far. */
  copied = 0;

  /** Octets received that do not yet form a whole message. */
  get pending(): number {
    return this.end - this.start;
  }

  /** Feed one chunk; `onMessage` gets each whole message (a view) and returns false to stop. Messages completed, or -1. */
  push(chunk: Buffer, onMessage: (msg: Buffer) => boolean): number {
    if (this.end === this.start) {
      // Nothing pending: read straight from the chunk, keep only an incomplete tail.
      const off = this.scan(chunk, 0, chunk.length, onMessage);
      if (off < 0) return -1;
      this.start = this.end = 0;
      if (off < chunk.length) this.append(chunk.subarray(off));
      else if (this.buf.length > KEEP_BUFFER) this.buf = EMPTY;
      return this.done;
    }
    this.append(chunk);
    const off = this.scan(this.buf, this.start, this.end, onMessage);
    if (off < 0) return -1;
    this.start = off;
    if (this.start === this.end) {
      this.start = this.end = 0;
      if (this.buf.length > KEEP_BUFFER) this.buf = EMPTY;
    }
    return this.done;
  }

  private done = 0;

  private scan(
    data: Buffer,
    off: number,
    end: number,
    onMessage: (msg: Buffer) => boolean,
  ): number {
    this.done = 0;
    while (end - off >= 2) {
      const len = data.readUInt16BE(off);
      if (end - off - 2 < len) break;
      const msg = data.subarray(off + 2, off + 2 + len);
      off += 2 + len;
      this.done++;
      if (!onMessage(msg)) return -1;
    }
    return off;
  }

  private append(chunk: Buffer): void {
    const used = this.end - this.start;
    if (this.end + chunk.length > this.buf.length) {
      if (used + chunk.length <= this.buf.length) {
        this.buf.copy(this.buf, 0, this.start, this.end);
      } else {
        const next = Buffer.allocUnsafe(Math.max(512, this.buf.length * 2, used + chunk.length));
        this.buf.copy(next, 0, this.start, this.end);
        this.buf = next;
      }
      this.copied += used;
      this.start = 0;
      this.end = used;
    }
    chunk.copy(this.buf, this.end);
    this.copied += chunk.length;
    this.end += chunk.length;
  }
}
