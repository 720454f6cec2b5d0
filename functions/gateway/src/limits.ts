import {
  type Configuration,
  GATEWAY_REST_IDEMPOTENCY_MAX_ENTRIES,
  GATEWAY_REST_IDEMPOTENCY_TTL,
  GATEWAY_REST_LOOKUP_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_LOOKUP_MAX_KEY_BYTES,
  GATEWAY_REST_LOOKUP_MAX_KEYS,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_PREFIXES,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_ROWS_PER_PREFIX,
  GATEWAY_REST_SCAN_MAX_RECORDS,
  GATEWAY_REST_SCAN_MAX_WAIT,
  GATEWAY_REST_SNAPSHOT_MAX_ROWS,
  GATEWAY_REST_TABLE_INFO_CACHE_MAX_ENTRIES,
  GATEWAY_REST_TABLE_INFO_CACHE_TTL,
  GATEWAY_REST_UNION_READ_MAX_PENDING_KEYS,
  GATEWAY_REST_UNION_READ_MAX_ROWS,
  GATEWAY_REST_WRITE_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_WRITE_MAX_REQUEST_BYTES,
  GATEWAY_REST_WRITE_MAX_ROWS,
  GATEWAY_REST_WRITE_RATE_LIMIT_BYTES_PER_SECOND,
  GATEWAY_REST_WRITE_RATE_LIMIT_ENABLED,
  GATEWAY_REST_WRITE_RATE_LIMIT_REQUESTS_PER_SECOND,
  GATEWAY_REST_WRITE_REQUEST_TIMEOUT,
} from '@sluice/core/config'
import { MAX_TYPE_NESTING_DEPTH } from '@sluice/core/types'

/**
 * Every bound the gateway enforces, read once from the `gateway.*` keys of the configuration
 * (`createApp`'s `limits` can override any of them, e.g. in tests).
 */
export interface GatewayLimits {
  readonly requestTimeoutMs: number
  readonly maxRequestBytes: number
  readonly maxRows: number
  readonly writeConcurrency: number
  readonly rateLimit: { readonly requestsPerSecond: number; readonly bytesPerSecond: number } | null
  readonly lookupMaxKeys: number
  readonly lookupMaxKeyBytes: number
  readonly lookupConcurrency: number
  readonly prefixLookupMaxPrefixes: number
  readonly prefixLookupMaxRowsPerPrefix: number
  readonly prefixLookupConcurrency: number
  /** Most records one log scan request returns. */
  readonly scanMaxRecords: number
  /** Longest a log scan waits for new records when a bucket has none. */
  readonly scanMaxWaitMs: number
  /** Most rows one snapshot request returns. */
  readonly snapshotMaxRows: number
  /** Most rows one union read returns, and most log keys a primary-key union read holds. */
  readonly unionReadMaxRows: number
  readonly unionReadMaxPendingKeys: number
  /** Idempotency-Key results kept, and for how long. */
  readonly idempotencyMaxEntries: number
  readonly idempotencyTtlMs: number
  /** Deepest JSON nesting accepted in a body: the row envelope plus the deepest nested type. */
  readonly maxJsonDepth: number
  /** How long the write and lookup routes keep a table's info (0: load it on every request). */
  readonly tableInfoCacheTtlMs: number
  /** Most tables whose info is kept (the one loaded longest ago is forgotten first). */
  readonly tableInfoCacheMaxEntries: number
}

/** `{"rows":[{"col": <value>}]}` is 3 levels before the value's own nesting. */
const ROW_ENVELOPE_DEPTH = 4

export function gatewayLimits(config: Configuration, overrides: Partial<GatewayLimits> = {}): GatewayLimits {
  const rateLimited = config.get(GATEWAY_REST_WRITE_RATE_LIMIT_ENABLED)
  return {
    requestTimeoutMs: config.get(GATEWAY_REST_WRITE_REQUEST_TIMEOUT),
    maxRequestBytes: config.get(GATEWAY_REST_WRITE_MAX_REQUEST_BYTES),
    maxRows: config.get(GATEWAY_REST_WRITE_MAX_ROWS),
    writeConcurrency: config.get(GATEWAY_REST_WRITE_MAX_CONCURRENT_REQUESTS),
    rateLimit: rateLimited
      ? {
          requestsPerSecond: config.get(GATEWAY_REST_WRITE_RATE_LIMIT_REQUESTS_PER_SECOND),
          bytesPerSecond: config.get(GATEWAY_REST_WRITE_RATE_LIMIT_BYTES_PER_SECOND),
        }
      : null,
    lookupMaxKeys: config.get(GATEWAY_REST_LOOKUP_MAX_KEYS),
    lookupMaxKeyBytes: config.get(GATEWAY_REST_LOOKUP_MAX_KEY_BYTES),
    lookupConcurrency: config.get(GATEWAY_REST_LOOKUP_MAX_CONCURRENT_REQUESTS),
    prefixLookupMaxPrefixes: config.get(GATEWAY_REST_PREFIX_LOOKUP_MAX_PREFIXES),
    prefixLookupMaxRowsPerPrefix: config.get(GATEWAY_REST_PREFIX_LOOKUP_MAX_ROWS_PER_PREFIX),
    prefixLookupConcurrency: config.get(GATEWAY_REST_PREFIX_LOOKUP_MAX_CONCURRENT_REQUESTS),
    scanMaxRecords: config.get(GATEWAY_REST_SCAN_MAX_RECORDS),
    scanMaxWaitMs: config.get(GATEWAY_REST_SCAN_MAX_WAIT),
    snapshotMaxRows: config.get(GATEWAY_REST_SNAPSHOT_MAX_ROWS),
    unionReadMaxRows: config.get(GATEWAY_REST_UNION_READ_MAX_ROWS),
    unionReadMaxPendingKeys: config.get(GATEWAY_REST_UNION_READ_MAX_PENDING_KEYS),
    idempotencyMaxEntries: config.get(GATEWAY_REST_IDEMPOTENCY_MAX_ENTRIES),
    idempotencyTtlMs: config.get(GATEWAY_REST_IDEMPOTENCY_TTL),
    maxJsonDepth: MAX_TYPE_NESTING_DEPTH + ROW_ENVELOPE_DEPTH,
    tableInfoCacheTtlMs: config.get(GATEWAY_REST_TABLE_INFO_CACHE_TTL),
    tableInfoCacheMaxEntries: config.get(GATEWAY_REST_TABLE_INFO_CACHE_MAX_ENTRIES),
    ...overrides,
  }
}
