/**
 * V8's young generation held at its first size (issue 30: thousands of
 * small zones).
 *
 * V8 doubles a thread's new space (`--semi-space-growth-factor`, 2) each
 * time more bytes survive its scavenges than the space holds, up to its
 * largest size (two semi-spaces of 64 MB on a machine of this memory). A
 * server start survives almost everything: on the answering thread every
 * zone's objects, on the zone-load thread every column of the zone in hand.
 * With 5,000 zones of 6 records the answering thread ended the load with a
 * new space of 134 MB (68-95 MB of it resident, 1-13 MB in use) and the
 * load thread with 67 MB (51-54 MB resident, nothing in use); V8 does not
 * give that back while the process is busy, and queries afterwards kept it
 * (109 MB resident after 10 s of dnsperf). Held at its first size (about
 * 2 MB), the same server was resident in 183 MB instead of 353 MB after the
 * load and 213 MB instead of 378 MB after the queries, at the same q/s
 * (24,400 and 24,000 in one run); a 1,000,000-record zone file loaded in the
 * same CPU time (bench/zone-load.ts, 2.65 s against 2.65-2.77 s) with a
 * lower peak (237 MB against 255-258 MB). A scavenge copies only what
 * survives it, so a smaller space costs more scavenges, each as short.
 *
 * Process-wide (every isolate's new space grows by the same factor). V8
 * clamps the factor to at least 2 when it reads it at start (`node
 * --semi-space-growth-factor=1` has no effect), not when it grows the
 * space, so it is set once the process runs. `serve` calls it at start.
 */
import { setFlagsFromString } from 'node:v8';

export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
