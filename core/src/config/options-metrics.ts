import { option } from './option.js'

/**
 * Metrics and logging options of every server process (coordinator, tablet server, gateway,
 * tiering function). The reporter keys are Fluss's; Sluice has one reporter, Prometheus.
 */

export const METRIC_REPORTERS = ['prometheus'] as const
export type MetricReporterName = (typeof METRIC_REPORTERS)[number]

export const METRICS_REPORTERS = option('metrics.reporters')
  .enumList(METRIC_REPORTERS)
  .default([])
  .description(
    "Metric reporters to start: 'prometheus' serves the Prometheus text format on `metrics.reporter.prometheus.port`. Empty: metrics are not recorded (Fluss's JMX and push-gateway reporters do not exist in Sluice and are refused).",
  )

export const METRICS_REPORTER_PROMETHEUS_PORT = option('metrics.reporter.prometheus.port')
  .string()
  .matching(/^\d{1,5}(-\d{1,5})?$/, "a port or a port range 'low-high'")
  .default('9249')
  .description(
    "Port of the Prometheus endpoint (`GET /metrics`), or a range 'low-high' of which the first free port is taken (for several servers on one host); 0 takes any free port. The bound port is printed as `metrics=http://host:port/metrics`.",
  )

export const SLUICE_METRICS_REPORTER_PROMETHEUS_HOST = option('sluice.metrics.reporter.prometheus.host')
  .string()
  .default('127.0.0.1')
  .description(
    'Address the Prometheus endpoint binds to (0.0.0.0 in containers scraped from outside the task).',
  )

export const SLUICE_METRICS_EMF_INTERVAL = option('sluice.metrics.emf.interval')
  .duration()
  .default('0s')
  .range(0, '1h')
  .description(
    "Every this long, print the operator metrics (under-replicated buckets, lake lag, KV snapshot failures, request and byte counters) as one CloudWatch embedded-metric-format line on stdout, for CloudWatch Logs to turn into metrics (ECS tasks, Lambda). '0s' disables it.",
  )

export const SLUICE_METRICS_EMF_NAMESPACE = option('sluice.metrics.emf.namespace')
  .string()
  .default('Sluice')
  .description('CloudWatch namespace of the embedded-metric-format lines.')

export const LOG_LEVEL = option('log.level')
  .string()
  .matching(
    /^(trace|debug|info|warn|error|off)(,[a-z][\w-]*=(trace|debug|info|warn|error|off))*$/i,
    "a level (trace, debug, info, warn, error, off), optionally followed by 'component=level' pairs: 'info,replica=debug,rpc=warn'",
  )
  .default('info')
  .description(
    "Lowest level of log lines written, for every component or per component: 'warn,kv-snapshot=debug' writes warnings and errors, and everything from the KV snapshot component. Components: coordinator, tablet-server, rpc, replica, kv-snapshot, remote-log, gateway, tiering.",
  )

export const SLUICE_LOG_FORMAT = option('sluice.log.format')
  .enum(['json', 'text'] as const)
  .default('json')
  .description(
    "How log lines are written: 'json' (one JSON object per line: time, level, component, message and fields such as table, bucket, epoch, request id) or 'text' (the same, for people).",
  )

export const METRICS_OPTIONS = [
  METRICS_REPORTERS,
  METRICS_REPORTER_PROMETHEUS_PORT,
  SLUICE_METRICS_REPORTER_PROMETHEUS_HOST,
  SLUICE_METRICS_EMF_INTERVAL,
  SLUICE_METRICS_EMF_NAMESPACE,
  LOG_LEVEL,
  SLUICE_LOG_FORMAT,
]
