/**
 * Prometheus text exposition format 0.0.4, by hand (`promtool check metrics`
 * checks it). Metrics are plain data (`MetricFamily[]`), so the families of
 * several workers can be summed (`mergeFamilies`) before they are written.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram';
export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** The sample's full name (a histogram's `_bucket`, `_sum`, `_count`). */
  readonly name: string;
  readonly labels: Labels;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly samples: readonly Sample[];
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return '';
  return `{${keys.map((k) => `${k}="${escapeLabel(labels[k]!)}"`).join(',')}}`;
}

/** The exposition text of these families (families without samples are left out). */
export function renderFamilies(families: readonly MetricFamily[]): string {
  let out = '';
  for (const f of families) {
    if (f.samples.length === 0) continue;
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) out += `${s.name}${labelText(s.labels)} ${formatValue(s.value)}\n`;
  }
  return out;
}

/** Helper: a family from [labels, value] pairs. */
export function family(
  name: string,
  type: 'counter' | 'gauge',
  help: string,
  values: Iterable<readonly [Labels, number]>,
): MetricFamily {
  const samples: Sample[] = [];
  for (const [labels, value] of values) samples.push({ name, labels, value });
  return { name, help, type, samples };
}

/** Helper: a histogram family from cumulative bucket counts per label set. */
export function histogram(
  name: string,
  help: string,
  bounds: readonly number[],
  series: Iterable<{ labels: Labels; counts: ArrayLike<number>; sum: number }>,
): MetricFamily {
  const samples: Sample[] = [];
  for (const { labels, counts, sum } of series) {
    let acc = 0;
    for (let i = 0; i < bounds.length; i++) {
      acc += counts[i]!;
      samples.push({
        name: `${name}_bucket`,
        labels: { ...labels, le: String(bounds[i]) },
        value: acc,
      });
    }
    acc += counts[bounds.length] ?? 0;
    samples.push({ name: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: acc });
    samples.push({ name: `${name}_sum`, labels, value: sum });
    samples.push({ name: `${name}_count`, labels, value: acc });
  }
  return { name, help, type: 'histogram', samples };
}

/** Sum the families of several workers by name and labels; gauges in `maxGauges` take the largest value. */
export function mergeFamilies(
  parts: readonly (readonly MetricFamily[])[],
  maxGauges: ReadonlySet<string> = new Set(),
): MetricFamily[] {
  const order: string[] = [];
  const byName = new Map<string, { f: MetricFamily; samples: Map<string, Sample> }>();
  for (const fams of parts) {
    for (const f of fams) {
      let m = byName.get(f.name);
      if (!m) {
        m = { f, samples: new Map() };
        byName.set(f.name, m);
        order.push(f.name);
      }
      for (const s of f.samples) {
        const key = `${s.name}${labelText(s.labels)}`;
        const prev = m.samples.get(key);
        if (!prev) m.samples.set(key, s);
        else {
          const value = maxGauges.has(f.name)
            ? Math.max(prev.value, s.value)
            : prev.value + s.value;
          m.samples.set(key, { ...s, value });
        }
      }
    }
  }
  return order.map((n) => {
    const m = byName.get(n)!;
    return { ...m.f, samples: [...m.samples.values()] };
  });
}
