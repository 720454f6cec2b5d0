import type { ConfigOption, OptionScope } from './option.js'
import { CATALOG_OPTIONS } from './options-catalog.js'
import { CLIENT_OPTIONS } from './options-client.js'
import { CLUSTER_OPTIONS } from './options-cluster.js'
import { COORDINATOR_OPTIONS } from './options-coordinator.js'
import { GATEWAY_OPTIONS } from './options-gateway.js'
import { KV_OPTIONS } from './options-kv.js'
import { LOG_OPTIONS } from './options-log.js'
import { METRICS_OPTIONS } from './options-metrics.js'
import { RPC_OPTIONS } from './options-rpc.js'
import { SCANNER_OPTIONS } from './options-scanner.js'
import { SASL_LISTENER_JAAS_PREFIX, SASL_PLAIN_USER_PREFIX, SECURITY_OPTIONS } from './options-security.js'
import { SERVER_OPTIONS } from './options-server.js'
import { SLUICE_OPTIONS } from './options-sluice.js'
import { TABLE_OPTIONS } from './options-table.js'
import { TABLET_OPTIONS } from './options-tablet.js'

export * from './options-catalog.js'
export * from './options-client.js'
export * from './options-cluster.js'
export * from './options-coordinator.js'
export * from './options-gateway.js'
export * from './options-kv.js'
export * from './options-log.js'
export * from './options-metrics.js'
export * from './options-rpc.js'
export * from './options-scanner.js'
export * from './options-security.js'
export * from './options-server.js'
export * from './options-sluice.js'
export * from './options-table.js'
export * from './options-tablet.js'

/** Every option Sluice supports, in documentation order. */
export const ALL_OPTIONS: readonly ConfigOption<unknown>[] = [
  ...TABLE_OPTIONS,
  ...CLUSTER_OPTIONS,
  ...SERVER_OPTIONS,
  ...LOG_OPTIONS,
  ...KV_OPTIONS,
  ...SECURITY_OPTIONS,
  ...CLIENT_OPTIONS,
  ...SCANNER_OPTIONS,
  ...GATEWAY_OPTIONS,
  ...SLUICE_OPTIONS,
  ...METRICS_OPTIONS,
  ...RPC_OPTIONS,
  ...TABLET_OPTIONS,
  ...COORDINATOR_OPTIONS,
  ...CATALOG_OPTIONS,
]

export const SCOPES: readonly OptionScope[] = ['table', 'cluster', 'server', 'client', 'gateway', 'local']

export const TABLE_PROPERTY_PREFIX = 'table.'

/**
 * Fluss 0.9.1 keys that Sluice reads no value from (ZooKeeper, JVM plugins, Kafka
 * protocol, thread-pool sizes of a multi-threaded server, deprecated host/port keys). A Fluss config
 * file that sets them still loads; the keys are reported as warnings.
 */
export const FLUSS_KEYS_NOT_USED: readonly string[] = [
  'zookeeper.address',
  'zookeeper.path.root',
  'zookeeper.client.max-inflight-requests',
  'zookeeper.client.session-timeout',
  'zookeeper.client.connection-timeout',
  'zookeeper.client.retry-wait',
  'zookeeper.client.max-retry-attempts',
  'zookeeper.client.tolerate-suspended-connections',
  'zookeeper.client.ensemble-tracker',
  'zookeeper.client.config-path',
  'zookeeper.client.max-buffer-size',
  'plugin.classloader.parent-first-patterns.default',
  'plugin.classloader.parent-first-patterns.additional',
  'kafka.enabled',
  'kafka.listener.names',
  'kafka.database',
  'kafka.connection.max-idle-time',
  'coordinator.host',
  'coordinator.port',
  'tablet-server.host',
  'tablet-server.port',
  'remote.log.data-transfer-thread-num',
  'kv.snapshot.transfer-thread-num',
  'kv.snapshot.scheduler-thread-num',
  'server.background.threads',
  'netty.server.num-network-threads',
  'netty.server.num-worker-threads',
  'netty.client.num-network-threads',
]

/**
 * Fluss 0.9.1 keys Sluice refuses, with the reason: accepting them would promise something that does
 * not happen (Fluss's JMX and Prometheus push-gateway reporters).
 */
export const FLUSS_KEYS_REFUSED: ReadonlyMap<string, string> = new Map(
  [
    'metrics.reporter.jmx.port',
    'metrics.reporter.prometheus-push.host-url',
    'metrics.reporter.prometheus-push.job-name',
    'metrics.reporter.prometheus-push.random-job-name-suffix',
    'metrics.reporter.prometheus-push.delete-on-shutdown',
    'metrics.reporter.prometheus-push.grouping-key',
    'metrics.reporter.prometheus-push.push-interval',
  ].map(key => [
    key,
    `'${key}' configures a Fluss metric reporter Sluice does not have; Sluice reports metrics through 'metrics.reporters: prometheus' (pulled from 'metrics.reporter.prometheus.port') or CloudWatch embedded metrics ('sluice.metrics.emf.interval').`,
  ]),
)

/**
 * Key prefixes whose keys are passed through unparsed to a component that owns them: the lake
 * format's catalog options (`datalake.iceberg.warehouse`, ...).
 */
export const PASSTHROUGH_PREFIXES: readonly string[] = [
  SASL_LISTENER_JAAS_PREFIX,
  SASL_PLAIN_USER_PREFIX,
  'datalake.iceberg.',
  'datalake.paimon.',
  'datalake.lance.',
]

/** Passed-through keys that hold secrets (listener-specific JAAS configs, user passwords): never logged or rendered. */
export function isSecretKey(key: string): boolean {
  return (
    optionByKey(key)?.secret === true ||
    key.startsWith(SASL_LISTENER_JAAS_PREFIX) ||
    key.startsWith(SASL_PLAIN_USER_PREFIX)
  )
}

const BY_KEY = new Map<string, ConfigOption<unknown>>()
for (const opt of ALL_OPTIONS) {
  BY_KEY.set(opt.key, opt)
  for (const k of opt.fallbackKeys) BY_KEY.set(k, opt)
}

/** The option registered under `key` (or under one of its fallback keys). */
export function optionByKey(key: string): ConfigOption<unknown> | undefined {
  return BY_KEY.get(key)
}

export function optionsInScope(scope: OptionScope): ConfigOption<unknown>[] {
  return ALL_OPTIONS.filter(o => o.scope === scope)
}

/** First dotted segments of registered keys: an unknown key starting with one of them is a typo. */
const OUR_PREFIXES = new Set(ALL_OPTIONS.map(o => firstSegment(o.key)))

export type KeyClass = 'registered' | 'passthrough' | 'not-used' | 'refused' | 'unknown-ours' | 'foreign'

/** How a loader should treat `key`: parse it, pass it on, warn about it, or reject it as a typo. */
export function classifyKey(key: string): KeyClass {
  if (BY_KEY.has(key)) return 'registered'
  if (PASSTHROUGH_PREFIXES.some(p => key.startsWith(p))) return 'passthrough'
  if (FLUSS_KEYS_NOT_USED.includes(key)) return 'not-used'
  if (FLUSS_KEYS_REFUSED.has(key)) return 'refused'
  return OUR_PREFIXES.has(firstSegment(key)) ? 'unknown-ours' : 'foreign'
}

function firstSegment(key: string): string {
  const dot = key.indexOf('.')
  return dot < 0 ? key : key.slice(0, dot)
}
