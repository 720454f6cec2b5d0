import {
  type Configuration,
  GATEWAY_REST_LOOKUP_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_LOOKUP_MAX_KEY_BYTES,
  GATEWAY_REST_LOOKUP_MAX_KEYS,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_PREFIXES,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_ROWS_PER_PREFIX,
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
 * Every bound the gateway enforces, read once from the configuration. The read-side bounds that
 * have no `gateway.*` key yet (scan records, snapshot rows, idempotency store) are the
 * `READ_LIMIT_DEFAULTS` below and can be overridden through `createApp`'s `limits`.
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
  /** Idempotency-Key results kept, and for how long. */
  readonly idempotencyMaxEntries: number
  readonly idempotencyTtlMs: number
  /** Deepest JSON nesting accepted in a body: the row envelope plus the deepest nested type. */
  readonly maxJsonDepth: number
}

export const READ_LIMIT_DEFAULTS = {
  scanMaxRecords: 10_000,
  scanMaxWaitMs: 1_000,
  snapshotMaxRows: 10_000,
  idempotencyMaxEntries: 10_000,
  idempotencyTtlMs: 3_600_000,
} as const

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
    ...READ_LIMIT_DEFAULTS,
    maxJsonDepth: MAX_TYPE_NESTING_DEPTH + ROW_ENVELOPE_DEPTH,
    ...overrides,
  }
}
