import {
  BOOTSTRAP_SERVERS,
  CLIENT_CONNECT_TIMEOUT,
  CLIENT_LOOKUP_BATCH_TIMEOUT,
  CLIENT_LOOKUP_MAX_BATCH_SIZE,
  CLIENT_LOOKUP_MAX_INFLIGHT_REQUESTS,
  CLIENT_LOOKUP_MAX_RETRIES,
  CLIENT_LOOKUP_QUEUE_SIZE,
  CLIENT_REQUEST_TIMEOUT,
  CLIENT_SCANNER_LOG_CHECK_CRC,
  CLIENT_SCANNER_LOG_FETCH_MAX_BYTES,
  CLIENT_SCANNER_LOG_FETCH_MAX_BYTES_FOR_BUCKET,
  CLIENT_SCANNER_LOG_FETCH_MIN_BYTES,
  CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME,
  CLIENT_SCANNER_LOG_MAX_POLL_RECORDS,
  CLIENT_SCANNER_PARTITION_DISCOVERY_INTERVAL,
  CLIENT_WRITER_ACKS,
  CLIENT_WRITER_BATCH_SIZE,
  CLIENT_WRITER_BATCH_TIMEOUT,
  CLIENT_WRITER_BUCKET_NO_KEY_ASSIGNER,
  CLIENT_WRITER_BUFFER_MEMORY_SIZE,
  CLIENT_WRITER_DYNAMIC_CREATE_PARTITION_ENABLED,
  CLIENT_WRITER_ENABLE_IDEMPOTENCE,
  CLIENT_WRITER_MAX_INFLIGHT_REQUESTS_PER_BUCKET,
  CLIENT_WRITER_REQUEST_MAX_SIZE,
  CLIENT_WRITER_RETRIES,
  Configuration,
  type RawValue,
} from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { type ClientSecurity, clientSecurity } from '@sluice/core/security'

/** A `host:port` a client connects to. */
export interface ServerAddress {
  readonly host: string
  readonly port: number
}

/** What the writer reads from the client configuration (sizes in bytes, times in ms). */
export interface WriterOptions {
  readonly batchSizeBytes: number
  readonly batchTimeoutMs: number
  readonly bufferMemoryBytes: number
  /** -1 (all in-sync replicas), 0 or 1, as sent in PRODUCE_LOG. */
  readonly acks: number
  readonly retries: number
  readonly requestMaxBytes: number
  readonly idempotence: boolean
  readonly maxInflightPerBucket: number
  readonly noKeyAssigner: 'STICKY' | 'ROUND_ROBIN'
  readonly dynamicCreatePartition: boolean
  readonly requestTimeoutMs: number
}

/** What the log scanner reads from the client configuration. */
export interface ScannerOptions {
  readonly fetchMaxBytes: number
  readonly fetchMaxBytesForBucket: number
  readonly fetchMinBytes: number
  readonly fetchWaitMaxMs: number
  readonly maxPollRecords: number
  readonly checkCrc: boolean
  /** How often a scanner of all partitions lists them (0 = once). */
  readonly partitionDiscoveryIntervalMs: number
}

/** What lookups read from the client configuration (`client.lookup.*`). */
export interface LookupOptions {
  /** Most lookups waiting to be sent. */
  readonly queueSize: number
  /** Most keys drained into one round of lookup requests. */
  readonly maxBatchSize: number
  /** Longest a lookup waits for others to share its request. */
  readonly batchTimeoutMs: number
  readonly maxInflightRequests: number
  readonly maxRetries: number
}

/** Every client option, read once when a Connection is created. */
export interface ClientOptions {
  readonly bootstrapServers: readonly ServerAddress[]
  readonly requestTimeoutMs: number
  readonly connectTimeoutMs: number
  readonly writer: WriterOptions
  readonly scanner: ScannerOptions
  readonly lookup: LookupOptions
  /** TLS and SASL of every connection (`client.security.*`). */
  readonly security: ClientSecurity
}

/** The most in-flight requests per bucket an idempotent writer may have (Fluss's limit). */
export const MAX_INFLIGHT_REQUESTS_PER_BUCKET_FOR_IDEMPOTENCE = 5

/** Builds a Configuration from a plain object (validated at once) or passes one through. */
export function toConfiguration(config: Configuration | Readonly<Record<string, RawValue>>): Configuration {
  if (config instanceof Configuration) return config
  return Configuration.load(config, { source: 'client configuration' })
}

/** Reads and cross-checks every client option once; bad combinations are INVALID_CONFIG_EXCEPTION. */
export function clientOptions(conf: Configuration): ClientOptions {
  const servers = conf.getOptional(BOOTSTRAP_SERVERS) ?? []
  if (servers.length === 0) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `'${BOOTSTRAP_SERVERS.key}' must name at least one server`,
    )
  }
  const requestTimeoutMs = conf.get(CLIENT_REQUEST_TIMEOUT)
  return {
    bootstrapServers: servers.map(parseServerAddress),
    requestTimeoutMs,
    connectTimeoutMs: conf.get(CLIENT_CONNECT_TIMEOUT),
    security: clientSecurity(conf),
    writer: writerOptions(conf, requestTimeoutMs),
    scanner: {
      fetchMaxBytes: conf.get(CLIENT_SCANNER_LOG_FETCH_MAX_BYTES),
      fetchMaxBytesForBucket: conf.get(CLIENT_SCANNER_LOG_FETCH_MAX_BYTES_FOR_BUCKET),
      fetchMinBytes: conf.get(CLIENT_SCANNER_LOG_FETCH_MIN_BYTES),
      fetchWaitMaxMs: conf.get(CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME),
      maxPollRecords: conf.get(CLIENT_SCANNER_LOG_MAX_POLL_RECORDS),
      checkCrc: conf.get(CLIENT_SCANNER_LOG_CHECK_CRC),
      partitionDiscoveryIntervalMs: conf.get(CLIENT_SCANNER_PARTITION_DISCOVERY_INTERVAL),
    },
    lookup: {
      queueSize: conf.get(CLIENT_LOOKUP_QUEUE_SIZE),
      maxBatchSize: conf.get(CLIENT_LOOKUP_MAX_BATCH_SIZE),
      batchTimeoutMs: conf.get(CLIENT_LOOKUP_BATCH_TIMEOUT),
      maxInflightRequests: conf.get(CLIENT_LOOKUP_MAX_INFLIGHT_REQUESTS),
      maxRetries: conf.get(CLIENT_LOOKUP_MAX_RETRIES),
    },
  }
}

function writerOptions(conf: Configuration, requestTimeoutMs: number): WriterOptions {
  const idempotence = conf.get(CLIENT_WRITER_ENABLE_IDEMPOTENCE)
  const acksText = conf.get(CLIENT_WRITER_ACKS)
  const acks = acksText === 'all' ? -1 : Number(acksText)
  const retries = conf.get(CLIENT_WRITER_RETRIES)
  const maxInflightPerBucket = conf.get(CLIENT_WRITER_MAX_INFLIGHT_REQUESTS_PER_BUCKET)
  if (idempotence && acks !== -1) {
    throw invalidIdempotence(`${CLIENT_WRITER_ACKS.key} must be 'all' (is '${acksText}')`)
  }
  if (idempotence && retries === 0) {
    throw invalidIdempotence(`${CLIENT_WRITER_RETRIES.key} must be above 0`)
  }
  if (idempotence && maxInflightPerBucket > MAX_INFLIGHT_REQUESTS_PER_BUCKET_FOR_IDEMPOTENCE) {
    throw invalidIdempotence(
      `${CLIENT_WRITER_MAX_INFLIGHT_REQUESTS_PER_BUCKET.key} must be at most ` +
        `${MAX_INFLIGHT_REQUESTS_PER_BUCKET_FOR_IDEMPOTENCE} (is ${maxInflightPerBucket})`,
    )
  }
  return {
    batchSizeBytes: conf.get(CLIENT_WRITER_BATCH_SIZE),
    batchTimeoutMs: conf.get(CLIENT_WRITER_BATCH_TIMEOUT),
    bufferMemoryBytes: conf.get(CLIENT_WRITER_BUFFER_MEMORY_SIZE),
    acks,
    retries,
    requestMaxBytes: conf.get(CLIENT_WRITER_REQUEST_MAX_SIZE),
    idempotence,
    maxInflightPerBucket,
    noKeyAssigner: conf.get(CLIENT_WRITER_BUCKET_NO_KEY_ASSIGNER),
    dynamicCreatePartition: conf.get(CLIENT_WRITER_DYNAMIC_CREATE_PARTITION_ENABLED),
    requestTimeoutMs,
  }
}

function invalidIdempotence(detail: string): FlussError {
  return new FlussError(
    'INVALID_CONFIG_EXCEPTION',
    `Invalid configuration for the idempotent writer (${CLIENT_WRITER_ENABLE_IDEMPOTENCE.key}=true): ${detail}`,
  )
}

/** Parses `host:port` or `[ipv6]:port`. */
export function parseServerAddress(text: string): ServerAddress {
  const trimmed = text.trim()
  const m = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(trimmed)
  const port = m === null ? Number.NaN : Number(m[3])
  if (m === null || port < 1 || port > 65535) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `Invalid server address '${text}' in '${BOOTSTRAP_SERVERS.key}': expected host:port`,
    )
  }
  return { host: m[1] ?? m[2], port }
}
