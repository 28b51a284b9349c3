/**
 * One code per reason a listening socket could not be opened, the same for `serve`, `resolver` and
 * `dev`: PORT_IN_USE (EADDRINUSE), PORT_DENIED (EACCES: a port below 1024 without the privilege),
 * ADDRESS_UNAVAILABLE (EADDRNOTAVAIL: no interface has the address), LISTEN_FAILED (anything else).
 */
export type ListenErrorCode =
  'PORT_IN_USE' | 'PORT_DENIED' | 'ADDRESS_UNAVAILABLE' | 'LISTEN_FAILED';

export function listenErrorCode(e: unknown): ListenErrorCode {
  const errno = (e as NodeJS.ErrnoException | null)?.code;
  const text = e instanceof Error ? e.message : String(e);
  if (errno === 'EADDRINUSE' || /EADDRINUSE/.test(text)) return 'PORT_IN_USE';
  if (errno === 'EACCES' || /EACCES/.test(text)) return 'PORT_DENIED';
  if (errno === 'EADDRNOTAVAIL' || /EADDRNOTAVAIL/.test(text)) return 'ADDRESS_UNAVAILABLE';
  return 'LISTEN_FAILED';
}
