/**
 * V8's young generation held at its first size. V8 doubles a thread's new
 * space each time more survives its scavenges than it holds, and a server
 * start survives almost everything (every zone's objects), so the space grew
 * to its largest and was not given back; held small, a scavenge copies only
 * what survives, so it costs more scavenges, each as short (figures in the
 * CHANGELOG). Process-wide; V8 clamps the factor to 2 only when it reads it
 * at start, so it is set once the process runs.
 */
import { setFlagsFromString } from 'node:v8';

export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
