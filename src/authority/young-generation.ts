/**
 * V8's young generation held at its first size: a server start survives almost every scavenge, so
 * V8 grew the space to its largest and kept it. Process-wide; set once the process runs (V8 clamps
 * the factor to 2 when it reads it at start).
 */
import { setFlagsFromString } from 'node:v8';

export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
