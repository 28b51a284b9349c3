/**
 * A test's reader of raw HTTP/1.1 responses (Content-Length bodies only, as
 * lexroute's servers send them), to look at the exact bytes a server wrote.
 */
export interface ResponseHead {
  get(name: string): string | undefined;
  /** Every field as [lowercase name, value], in order. */
  fields(): [string, string][];
}

export interface ParsedResponse {
  status: number;
  headers: ResponseHead;
  body: Buffer;
  /** The connection stays open after this response (HTTP/1.1 without `Connection: close`). */
  keepAlive: boolean;
}

/** The response at the start of `buf`, or `done: false` when it has not all arrived. */
export function parseResponse(
  buf: Buffer,
  closed: boolean,
): { done: false } | { done: true; parsed: ParsedResponse; rest: number } {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) {
    if (closed) throw new Error('the connection closed in the response head');
    return { done: false };
  }
  const [statusLine, ...lines] = buf.toString('latin1', 0, end).split('\r\n');
  const m = /^HTTP\/1\.([01]) (\d{3})/.exec(statusLine ?? '');
  if (!m) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
  const fields = lines.map((l): [string, string] => {
    const colon = l.indexOf(':');
    return [l.slice(0, colon).trim().toLowerCase(), l.slice(colon + 1).trim()];
  });
  const headers: ResponseHead = {
    get: (name) => fields.find(([k]) => k === name)?.[1],
    fields: () => fields,
  };
  const length = Number(headers.get('content-length') ?? 0);
  if (buf.length < end + 4 + length) {
    if (closed) throw new Error('the connection closed in the response body');
    return { done: false };
  }
  const keepAlive = m[1] === '1' && headers.get('connection')?.toLowerCase() !== 'close';
  const body = buf.subarray(end + 4, end + 4 + length);
  return {
    done: true,
    parsed: { status: Number(m[2]), headers, body, keepAlive },
    rest: end + 4 + length,
  };
}
