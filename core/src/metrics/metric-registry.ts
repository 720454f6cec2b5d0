import { collectDefaultMetrics, Registry } from 'prom-client'
import {
  CounterFamily,
  GaugeFamily,
  type GaugeReading,
  HistogramFamily,
  type Labels,
  type PromMetric,
} from './families.js'
import { METER_TICK_MS, MeterFamily } from './meter.js'

/** Fluss's scopes (`fluss_<scope>_...`), plus the gateway's and the tiering function's. */
export type MetricScope = 'coordinator' | 'tabletserver' | 'gateway' | 'tiering' | 'client'

/** Upper bounds (ms) of latency histograms. */
export const LATENCY_BUCKETS_MS: readonly number[] = [
  0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000,
]
/** Upper bounds (bytes) of request-size histograms. */
export const SIZE_BUCKETS_BYTES: readonly number[] = [
  256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216,
]

/**
 * The metrics of one process, named as Fluss's Prometheus reporter names them:
 * `fluss_<scope>_<infix>_<metric>`, with Fluss's variables (`database`, `table`, `bucket`, ...) as
 * labels and `server_id` (where there is one) on every series. prom-client renders the text and
 * contributes Node's own metrics (`nodejs_eventloop_lag_p99_seconds`, `nodejs_gc_duration_seconds`,
 * `nodejs_heap_size_used_bytes`, ...).
 */
export class MetricRegistry {
  readonly prom = new Registry()
  readonly prefix: string
  readonly #meters: MeterFamily[] = []
  readonly #timer: NodeJS.Timeout

  constructor(
    readonly scope: MetricScope,
    defaultLabels: Labels = {},
  ) {
    this.prefix = `fluss_${scope}_`
    this.prom.setDefaultLabels({ ...defaultLabels })
    collectDefaultMetrics({ register: this.prom, eventLoopMonitoringPrecision: 10 })
    this.#timer = setInterval(() => {
      for (const m of this.#meters) m.tick()
    }, METER_TICK_MS)
    this.#timer.unref()
  }

  /** A Fluss meter: `<infix><base>PerSecond` (rate) and `<infix><base>_total` (count). */
  meter(base: string, help: string, labelNames: readonly string[] = []): MeterFamily {
    const m = new MeterFamily(this.prefix, base, help, labelNames)
    this.#register(m.counter)
    this.#register(m.rate)
    this.#meters.push(m)
    return m
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): CounterFamily {
    return this.#register(new CounterFamily(`${this.prefix}${name}_total`, help, labelNames))
  }

  /** A gauge read at scrape time. */
  gauge(name: string, help: string, read: () => GaugeReading | Promise<GaugeReading>): GaugeFamily {
    return this.#register(new GaugeFamily(`${this.prefix}${name}`, help, read))
  }

  /** A count kept by a component (its statistics), read at scrape time: `<name>_total`. */
  countReading(name: string, help: string, read: () => GaugeReading | Promise<GaugeReading>): GaugeFamily {
    return this.#register(new GaugeFamily(`${this.prefix}${name}_total`, help, read, 'counter'))
  }

  histogram(
    name: string,
    help: string,
    bounds: readonly number[],
    labelNames: readonly string[] = [],
  ): HistogramFamily {
    return this.#register(new HistogramFamily(`${this.prefix}${name}`, help, labelNames, bounds))
  }

  /** The Prometheus text exposition. */
  metrics(): Promise<string> {
    return this.prom.metrics()
  }

  get contentType(): string {
    return this.prom.contentType
  }

  /** Every series as prom-client's JSON (for the embedded-metric-format publisher and tests). */
  json(): Promise<Awaited<ReturnType<Registry['getMetricsAsJSON']>>> {
    return this.prom.getMetricsAsJSON()
  }

  close(): void {
    clearInterval(this.#timer)
    this.prom.clear()
  }

  #register<M extends PromMetric>(metric: M): M {
    this.prom.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0])
    return metric
  }
}
