import type { MetricRegistry } from './metric-registry.js'

/** One CloudWatch metric taken from the registry: the sum or maximum over a family's series, or a counter's increase. */
export interface EmfMetric {
  /** Full Prometheus name (`fluss_tabletserver_underReplicated`). */
  readonly from: string
  /** CloudWatch metric name. */
  readonly name: string
  readonly unit: 'Count' | 'Bytes' | 'Milliseconds' | 'None'
  /** sum/max over the series now, or the increase of a counter since the last line. */
  readonly kind: 'sum' | 'max' | 'delta'
}

export interface EmfPublisherOptions {
  readonly registry: MetricRegistry
  readonly namespace: string
  /** Dimension values on every line (`Service`, and `ServerId` where there is one). */
  readonly dimensions: Readonly<Record<string, string>>
  readonly metrics: readonly EmfMetric[]
  readonly intervalMs: number
  /** Where lines go (stdout, where CloudWatch Logs picks them up). */
  readonly write: (line: string) => void
  readonly nowMs?: () => number
}

/**
 * Prints the operator metrics every `intervalMs` as one line of CloudWatch's embedded metric format
 * (ECS tasks and Lambda functions log to CloudWatch Logs, which turns these lines into metrics the
 * CDK alarms watch). Dimensions: the service alone, and the service with the rest (`ServerId`).
 */
export class EmfPublisher {
  readonly #options: EmfPublisherOptions
  readonly #last = new Map<string, number>()
  readonly #timer: NodeJS.Timeout

  constructor(options: EmfPublisherOptions) {
    this.#options = options
    this.#timer = setInterval(() => void this.publish(), options.intervalMs)
    this.#timer.unref()
  }

  /** Builds and writes one line now; resolves with it. */
  async publish(): Promise<string> {
    const o = this.#options
    const families = new Map((await o.registry.json()).map(m => [m.name, m]))
    const values: Record<string, number> = {}
    for (const m of o.metrics) {
      const series = (families.get(m.from)?.values ?? []).map(v => Number(v.value))
      if (m.kind === 'max') values[m.name] = series.length === 0 ? 0 : Math.max(...series)
      else {
        const sum = series.reduce((a, b) => a + b, 0)
        if (m.kind === 'sum') values[m.name] = sum
        else {
          values[m.name] = Math.max(0, sum - (this.#last.get(m.name) ?? 0))
          this.#last.set(m.name, sum)
        }
      }
    }
    const keys = Object.keys(o.dimensions)
    const line = JSON.stringify({
      _aws: {
        Timestamp: (o.nowMs ?? Date.now)(),
        CloudWatchMetrics: [
          {
            Namespace: o.namespace,
            Dimensions: keys.length > 1 ? [keys.slice(0, 1), keys] : [keys],
            Metrics: o.metrics.map(m => ({ Name: m.name, Unit: m.unit })),
          },
        ],
      },
      ...o.dimensions,
      ...values,
    })
    o.write(line)
    return line
  }

  close(): void {
    clearInterval(this.#timer)
  }
}
