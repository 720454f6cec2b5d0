import type { Configuration } from '../config/configuration.js'
import {
  METRICS_REPORTER_PROMETHEUS_PORT,
  METRICS_REPORTERS,
  SLUICE_METRICS_EMF_INTERVAL,
  SLUICE_METRICS_EMF_NAMESPACE,
  SLUICE_METRICS_REPORTER_PROMETHEUS_HOST,
} from '../config/options-metrics.js'
import { type EmfMetric, EmfPublisher } from './emf.js'
import type { Labels } from './families.js'
import { MetricRegistry, type MetricScope } from './metric-registry.js'
import { type PrometheusEndpoint, startPrometheusEndpoint } from './prometheus-endpoint.js'

/** A process's metrics: the registry its components record into, and what reports it. */
export interface ProcessMetrics {
  readonly registry: MetricRegistry
  /** The Prometheus endpoint, when `metrics.reporters` has prometheus. */
  readonly endpoint: PrometheusEndpoint | undefined
  readonly emf: EmfPublisher | undefined
  close(): Promise<void>
}

export interface ProcessMetricsOptions {
  readonly scope: MetricScope
  /** Labels on every series (`server_id`). */
  readonly labels?: Labels
  /** What the embedded-metric-format lines carry (when `sluice.metrics.emf.interval` is set). */
  readonly emfMetrics?: readonly EmfMetric[]
  /** Where EMF lines go; default stdout. */
  readonly write?: (line: string) => void
}

/** Whether the configuration asks for metrics at all (a reporter or EMF lines). */
export function metricsEnabled(config: Configuration): boolean {
  return config.get(METRICS_REPORTERS).length > 0 || config.get(SLUICE_METRICS_EMF_INTERVAL) > 0
}

/**
 * Starts the metrics of a server process from its configuration, or returns undefined when neither
 * a reporter nor EMF lines are configured: then nothing is recorded (components get no registry).
 */
export async function startProcessMetrics(
  config: Configuration,
  options: ProcessMetricsOptions,
): Promise<ProcessMetrics | undefined> {
  if (!metricsEnabled(config)) return undefined
  const registry = new MetricRegistry(options.scope, options.labels ?? {})
  const endpoint = config.get(METRICS_REPORTERS).includes('prometheus')
    ? await startPrometheusEndpoint(
        registry,
        config.get(SLUICE_METRICS_REPORTER_PROMETHEUS_HOST),
        config.get(METRICS_REPORTER_PROMETHEUS_PORT),
      )
    : undefined
  const intervalMs = config.get(SLUICE_METRICS_EMF_INTERVAL)
  const emf =
    intervalMs > 0
      ? new EmfPublisher({
          registry,
          namespace: config.get(SLUICE_METRICS_EMF_NAMESPACE),
          dimensions: {
            Service: options.scope,
            ...(options.labels?.server_id ? { ServerId: options.labels.server_id } : {}),
          },
          metrics: options.emfMetrics ?? [],
          intervalMs,
          write: options.write ?? (line => process.stdout.write(`${line}\n`)),
        })
      : undefined
  return {
    registry,
    endpoint,
    emf,
    async close() {
      emf?.close()
      await endpoint?.close()
      registry.close()
    },
  }
}
