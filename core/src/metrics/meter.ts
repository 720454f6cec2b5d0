import { Count, CounterFamily, type Labels, type PromMetric } from './families.js'

/** Fluss's MeterView: the rate over the last 60 s, refreshed every 5 s. */
export const METER_TICK_MS = 5_000
const METER_WINDOW_TICKS = 12

/** A counted series with the samples its rate is computed from. */
export class MeteredCount extends Count {
  readonly #samples: number[] = [0]
  /** Takes one sample (called every METER_TICK_MS by the registry). */
  tick(): void {
    this.#samples.push(this.count)
    if (this.#samples.length > METER_WINDOW_TICKS + 1) this.#samples.shift()
  }
  /** Events per second over the sampled window (0 before the first tick). */
  get rate(): number {
    const s = this.#samples
    if (s.length < 2) return 0
    return ((s[s.length - 1] as number) - (s[0] as number)) / (((s.length - 1) * METER_TICK_MS) / 1000)
  }
}

class MeterCounts extends CounterFamily {
  protected override create(labels: Labels): MeteredCount {
    return new MeteredCount(labels)
  }
}

/**
 * A Fluss meter (`messagesInPerSecond`): exported twice, as Fluss's Prometheus reporter does (a gauge
 * `<base>PerSecond` of the rate over the last minute) and as the Prometheus counter `<base>_total`
 * the rate is built on (what `rate()` and alerts should use).
 */
export class MeterFamily {
  readonly counter: CounterFamily
  readonly rate: PromMetric

  constructor(prefix: string, base: string, help: string, labelNames: readonly string[]) {
    const counts = new MeterCounts(`${prefix}${base}_total`, `${help} (count).`, labelNames)
    this.counter = counts
    this.rate = {
      name: `${prefix}${base}PerSecond`,
      help: `${help} per second, over the last minute.`,
      type: 'gauge',
      get: () => ({
        name: this.rate.name,
        help: this.rate.help,
        type: 'gauge',
        values: [...this.#all()].map(c => ({ labels: c.labels, value: c.rate })),
        aggregator: 'sum',
      }),
      reset: () => undefined,
    }
  }

  child(...values: string[]): MeteredCount {
    return this.counter.child(...values) as MeteredCount
  }

  remove(...values: string[]): void {
    this.counter.remove(...values)
  }

  tick(): void {
    for (const c of this.#all()) c.tick()
  }

  #all(): IterableIterator<MeteredCount> {
    return this.counter.series() as IterableIterator<MeteredCount>
  }
}
