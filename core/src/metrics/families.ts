/**
 * Metric families whose recording is a plain number update on an object resolved once (per API,
 * per table, per bucket), and whose values are handed to prom-client only when it is scraped.
 * prom-client's own `inc`/`observe` validate and hash the labels on every call; these do not, so
 * recording stays a field increment on the hot paths. Each family is a prom-client metric (it has
 * `name`, `help`, `type` and `get()`), registered in a prom-client `Registry` that renders the text.
 */

export type Labels = Readonly<Record<string, string>>

interface PromValue {
  readonly labels: Labels
  readonly value: number
  readonly metricName?: string
}

interface PromMetricData {
  readonly name: string
  readonly help: string
  readonly type: 'counter' | 'gauge' | 'histogram'
  readonly values: PromValue[]
  readonly aggregator: 'sum'
}

/** What prom-client's Registry needs of a metric. */
export interface PromMetric {
  readonly name: string
  readonly help: string
  readonly type: 'counter' | 'gauge' | 'histogram'
  get(): PromMetricData | Promise<PromMetricData>
  reset(): void
}

/** What a gauge reads when scraped: one unlabelled number, or [labels, value] pairs. */
export type GaugeReading = number | Iterable<readonly [Labels, number]>

/** One labelled series of a counter or meter: add to `count`. */
export class Count {
  count = 0
  constructor(readonly labels: Labels) {}
  /** Adds `n` (one per request or batch, never per record). */
  add(n = 1): void {
    this.count += n
  }
}

abstract class Family<C> implements PromMetric {
  abstract readonly type: 'counter' | 'gauge' | 'histogram'
  readonly #children = new Map<string, C>()

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  /** The series of these label values (created at first use; keep it, do not look it up per record). */
  child(...values: string[]): C {
    const key = values.join('\u0000')
    let c = this.#children.get(key)
    if (c === undefined) {
      const labels: Record<string, string> = {}
      this.labelNames.forEach((n, i) => {
        labels[n] = values[i] ?? ''
      })
      c = this.create(labels)
      this.#children.set(key, c)
    }
    return c
  }

  /** Forgets a series (a dropped table, a bucket no longer held here). */
  remove(...values: string[]): void {
    this.#children.delete(values.join('\u0000'))
  }

  /** Every series recorded so far. */
  series(): IterableIterator<C> {
    return this.#children.values()
  }

  protected abstract create(labels: Labels): C
  abstract get(): PromMetricData

  reset(): void {
    this.#children.clear()
  }
}

/** A monotonic count, exported as a Prometheus counter (`<name>` ends in `_total`). */
export class CounterFamily extends Family<Count> {
  readonly type = 'counter' as const
  protected create(labels: Labels): Count {
    return new Count(labels)
  }
  get(): PromMetricData {
    const values = [...this.series()].map(c => ({ labels: c.labels, value: c.count }))
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' }
  }
}

/**
 * A value read when scraped (possibly asynchronously: RocksDB properties). As a `counter` it exports
 * a count kept elsewhere (a component's own statistics).
 */
export class GaugeFamily implements PromMetric {
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly read: () => GaugeReading | Promise<GaugeReading>,
    readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}
  async get(): Promise<PromMetricData> {
    const read = await this.read()
    const values =
      typeof read === 'number'
        ? [{ labels: {}, value: read }]
        : [...read].map(([labels, value]) => ({ labels, value }))
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' }
  }
  reset(): void {}
}

/** Observations into fixed buckets (upper bounds ascending): `observe` is a short loop and two adds. */
export class Buckets {
  readonly counts: number[]
  sum = 0
  total = 0
  constructor(
    readonly labels: Labels,
    readonly bounds: readonly number[],
  ) {
    this.counts = new Array(bounds.length).fill(0)
  }
  observe(value: number): void {
    const bounds = this.bounds
    let i = 0
    while (i < bounds.length && value > bounds[i]) i++
    if (i < bounds.length) this.counts[i]++
    this.sum += value
    this.total++
  }
}

/** A Prometheus histogram (cumulative `_bucket{le}`, `_sum`, `_count`). */
export class HistogramFamily extends Family<Buckets> {
  readonly type = 'histogram' as const
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly bounds: readonly number[],
  ) {
    super(name, help, labelNames)
  }
  protected create(labels: Labels): Buckets {
    return new Buckets(labels, this.bounds)
  }
  get(): PromMetricData {
    const values: PromValue[] = []
    for (const b of this.series()) {
      let acc = 0
      b.bounds.forEach((le, i) => {
        acc += b.counts[i]
        values.push({
          labels: { ...b.labels, le: String(le) },
          value: acc,
          metricName: `${this.name}_bucket`,
        })
      })
      values.push({ labels: { ...b.labels, le: '+Inf' }, value: b.total, metricName: `${this.name}_bucket` })
      values.push({ labels: b.labels, value: b.sum, metricName: `${this.name}_sum` })
      values.push({ labels: b.labels, value: b.total, metricName: `${this.name}_count` })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' }
  }
}
