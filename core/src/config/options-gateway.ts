import { option } from './option.js'

/** HTTP gateway options, with the keys and defaults of Fluss's REST gateway. */

export const GATEWAY_AUTHENTICATION_MODES = ['trust', 'password', 'token', 'trusted-header'] as const
export type GatewayAuthenticationMode = (typeof GATEWAY_AUTHENTICATION_MODES)[number]

const gateway = (key: string) => option(key).inScope('gateway')

export const GATEWAY_REST_LISTEN = gateway('gateway.rest.listen')
  .string()
  .matching(/^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+):\d{1,5}$/, "'host:port'")
  .default('127.0.0.1:8080')
  .description("Address 'host:port' the gateway serves HTTP on when it runs as a server (local mode).")

export const GATEWAY_REST_HEADER_READ_TIMEOUT = gateway('gateway.rest.header-read-timeout')
  .duration()
  .default('10s')
  .range(1, '10min')
  .description('Longest wait for the request headers of a connection.')

export const GATEWAY_REST_WRITE_REQUEST_TIMEOUT = gateway('gateway.rest.write.request-timeout')
  .duration()
  .default('30s')
  .range(1, '15min')
  .description('Deadline of one HTTP request; a request past it fails with 504 timeout.')

export const GATEWAY_REST_WRITE_MAX_REQUEST_BYTES = gateway('gateway.rest.write.max-request-bytes')
  .memory()
  .default('32mb')
  .range(1, '1gb')
  .description('Largest request body; larger bodies fail with 413 limit_exceeded.')

export const GATEWAY_REST_WRITE_MAX_ROWS = gateway('gateway.rest.write.max-rows')
  .int()
  .default(10_000)
  .range(1, 10_000_000)
  .description('Most rows in one write request.')

export const GATEWAY_REST_WRITE_MAX_CONCURRENT_REQUESTS = gateway(
  'gateway.rest.write.max-concurrent-requests',
)
  .int()
  .default(64)
  .range(1, 100_000)
  .description('Write requests served at once; more fail with 429 resource_exhausted.')

export const GATEWAY_REST_WRITE_ENCODER_THREADS = gateway('gateway.rest.write.encoder-threads')
  .int()
  .default(2)
  .range(0, 64)
  .description(
    'Worker threads that read, validate and encode the rows of append bodies into compressed Arrow batches, ' +
      'beside the event loop; 0 does it on the event loop (as a bundled Lambda function always does).',
  )

export const GATEWAY_REST_WRITE_RATE_LIMIT_ENABLED = gateway('gateway.rest.write.rate-limit.enabled')
  .boolean()
  .default(false)
  .description('Limit the rate of write requests and bytes.')

export const GATEWAY_REST_WRITE_RATE_LIMIT_REQUESTS_PER_SECOND = gateway(
  'gateway.rest.write.rate-limit.requests-per-second',
)
  .int()
  .default(1000)
  .range(1)
  .description('Write requests per second allowed when the rate limit is on.')

export const GATEWAY_REST_WRITE_RATE_LIMIT_BYTES_PER_SECOND = gateway(
  'gateway.rest.write.rate-limit.bytes-per-second',
)
  .memory()
  .default('64mb')
  .range(1)
  .description('Write body bytes per second allowed when the rate limit is on.')

export const GATEWAY_REST_LOOKUP_MAX_KEYS = gateway('gateway.rest.lookup.max-keys')
  .int()
  .default(128)
  .range(1, 100_000)
  .description('Most keys in one lookup request.')

export const GATEWAY_REST_LOOKUP_MAX_KEY_BYTES = gateway('gateway.rest.lookup.max-key-bytes')
  .memory()
  .default('1mb')
  .range(1, '64mb')
  .description('Largest encoded key in a lookup request.')

export const GATEWAY_REST_LOOKUP_MAX_CONCURRENT_REQUESTS = gateway(
  'gateway.rest.lookup.max-concurrent-requests',
)
  .int()
  .default(64)
  .range(1, 100_000)
  .description('Lookup requests served at once; more fail with 429 resource_exhausted.')

export const GATEWAY_REST_PREFIX_LOOKUP_MAX_PREFIXES = gateway('gateway.rest.prefix-lookup.max-prefixes')
  .int()
  .default(16)
  .range(1, 10_000)
  .description('Most prefixes in one prefix-lookup request.')

export const GATEWAY_REST_PREFIX_LOOKUP_MAX_ROWS_PER_PREFIX = gateway(
  'gateway.rest.prefix-lookup.max-rows-per-prefix',
)
  .int()
  .default(1000)
  .range(1, 1_000_000)
  .description('Most rows returned for one prefix.')

export const GATEWAY_REST_PREFIX_LOOKUP_MAX_CONCURRENT_REQUESTS = gateway(
  'gateway.rest.prefix-lookup.max-concurrent-requests',
)
  .int()
  .default(32)
  .range(1, 100_000)
  .description('Prefix-lookup requests served at once; more fail with 429 resource_exhausted.')

export const GATEWAY_REST_SCAN_MAX_RECORDS = gateway('gateway.rest.scan.max-records')
  .int()
  .default(10_000)
  .range(1, 1_000_000)
  .description('Most log records one scan request returns; a larger `limit` is cut to it.')

export const GATEWAY_REST_SCAN_MAX_WAIT = gateway('gateway.rest.scan.max-wait')
  .duration()
  .default('1s')
  .range(0, '10min')
  .description(
    'Longest a scan request waits for new records when no bucket has unread ones; a larger `max_wait_ms` is cut to it.',
  )

export const GATEWAY_REST_SNAPSHOT_MAX_ROWS = gateway('gateway.rest.snapshot.max-rows')
  .int()
  .default(10_000)
  .range(1, 1_000_000)
  .description('Most rows one snapshot request returns; a larger `limit` is cut to it.')

export const GATEWAY_REST_UNION_READ_MAX_ROWS = gateway('gateway.rest.union-read.max-rows')
  .int()
  .default(10_000)
  .range(1, 1_000_000)
  .description('Most rows one union read (lake snapshot plus log) returns; a larger `limit` is cut to it.')

export const GATEWAY_REST_UNION_READ_MAX_PENDING_KEYS = gateway('gateway.rest.union-read.max-pending-keys')
  .int()
  .default(100_000)
  .range(1, 10_000_000)
  .description(
    'Most keys a union read of a primary-key table holds from the log after the lake snapshot; more fail the request (wait for tiering).',
  )

export const GATEWAY_REST_IDEMPOTENCY_MAX_ENTRIES = gateway('gateway.rest.idempotency.max-entries')
  .int()
  .default(10_000)
  .range(1, 10_000_000)
  .description(
    'Idempotency-Key outcomes the gateway keeps in memory (per process or Lambda container); the least recently updated are dropped first.',
  )

export const GATEWAY_REST_IDEMPOTENCY_TTL = gateway('gateway.rest.idempotency.ttl')
  .duration()
  .default('1h')
  .range('1s', '7d')
  .description('How long an Idempotency-Key outcome is kept for retries after its last change.')

export const GATEWAY_REST_TABLE_INFO_CACHE_TTL = gateway('gateway.rest.table-info.cache-ttl')
  .duration()
  .default('1s')
  .range(0, '1min')
  .description(
    "How long the write and lookup routes reuse a table's info between requests (0 loads it on every request). A write checked against info the table no longer has is refused by the SDK and retried once with fresh info.",
  )

export const GATEWAY_REST_TABLE_INFO_CACHE_MAX_ENTRIES = gateway('gateway.rest.table-info.cache-max-entries')
  .int()
  .default(1024)
  .range(1, 100_000)
  .description('Tables whose info the gateway keeps between requests; the one loaded longest ago goes first.')

export const GATEWAY_CONNECT_RETRY_BACKOFF_INITIAL = gateway('gateway.connect.retry-backoff.initial')
  .duration()
  .default('1s')
  .range(1, '10min')
  .description(
    'Wait after a failed connection to the cluster before the gateway tries again (Lambda containers connect on demand); doubles with each failure.',
  )

export const GATEWAY_CONNECT_RETRY_BACKOFF_MAX = gateway('gateway.connect.retry-backoff.max')
  .duration()
  .default('30s')
  .range(1, '1h')
  .description('Longest wait between connection attempts to the cluster.')

export const GATEWAY_SHUTDOWN_DRAIN_TIMEOUT = gateway('gateway.shutdown.drain-timeout')
  .duration()
  .default('30s')
  .range(0, '15min')
  .description('Longest the gateway waits for requests in flight when it shuts down.')

export const GATEWAY_METRICS_ENABLED = gateway('gateway.metrics.enabled')
  .boolean()
  .default(true)
  .description(
    "Record the gateway's request metrics (requests, errors, latency and bytes per route) when a metric reporter runs (`metrics.reporters`); false leaves them out of its endpoint.",
  )

export const GATEWAY_SECURITY_AUTHENTICATION = gateway('gateway.security.authentication')
  .enum(GATEWAY_AUTHENTICATION_MODES)
  .default('trust')
  .description(
    'How callers are authenticated: trust (nobody), password (basic auth against `gateway.security.users`), token (bearer tokens in `gateway.security.tokens`) or trusted-header (a proxy-set header names the user).',
  )

export const GATEWAY_SECURITY_USERS = gateway('gateway.security.users')
  .string()
  .noDefault()
  .isSecret()
  .description("Users for password mode, as 'user:secret' entries separated by commas.")

export const GATEWAY_SECURITY_TOKENS = gateway('gateway.security.tokens')
  .string()
  .noDefault()
  .isSecret()
  .description("Bearer tokens for token mode, as 'token:user' entries separated by commas.")

export const GATEWAY_SECURITY_TRUSTED_HEADER_NAME = gateway('gateway.security.trusted-header.name')
  .string()
  .default('x-forwarded-user')
  .description('Header that carries the user name in trusted-header mode.')

export const GATEWAY_CLUSTERS = gateway('gateway.clusters')
  .list()
  .default('default')
  .notSupported('the gateway serves one cluster')
  .description('Cluster ids the gateway serves; they appear in REST paths. Sluice serves one cluster.')

export const GATEWAY_OPTIONS = [
  GATEWAY_REST_LISTEN,
  GATEWAY_REST_HEADER_READ_TIMEOUT,
  GATEWAY_REST_WRITE_REQUEST_TIMEOUT,
  GATEWAY_REST_WRITE_MAX_REQUEST_BYTES,
  GATEWAY_REST_WRITE_MAX_ROWS,
  GATEWAY_REST_WRITE_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_WRITE_ENCODER_THREADS,
  GATEWAY_REST_WRITE_RATE_LIMIT_ENABLED,
  GATEWAY_REST_WRITE_RATE_LIMIT_REQUESTS_PER_SECOND,
  GATEWAY_REST_WRITE_RATE_LIMIT_BYTES_PER_SECOND,
  GATEWAY_REST_LOOKUP_MAX_KEYS,
  GATEWAY_REST_LOOKUP_MAX_KEY_BYTES,
  GATEWAY_REST_LOOKUP_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_PREFIXES,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_ROWS_PER_PREFIX,
  GATEWAY_REST_PREFIX_LOOKUP_MAX_CONCURRENT_REQUESTS,
  GATEWAY_REST_SCAN_MAX_RECORDS,
  GATEWAY_REST_SCAN_MAX_WAIT,
  GATEWAY_REST_SNAPSHOT_MAX_ROWS,
  GATEWAY_REST_UNION_READ_MAX_ROWS,
  GATEWAY_REST_UNION_READ_MAX_PENDING_KEYS,
  GATEWAY_REST_IDEMPOTENCY_MAX_ENTRIES,
  GATEWAY_REST_IDEMPOTENCY_TTL,
  GATEWAY_REST_TABLE_INFO_CACHE_TTL,
  GATEWAY_REST_TABLE_INFO_CACHE_MAX_ENTRIES,
  GATEWAY_CONNECT_RETRY_BACKOFF_INITIAL,
  GATEWAY_CONNECT_RETRY_BACKOFF_MAX,
  GATEWAY_SHUTDOWN_DRAIN_TIMEOUT,
  GATEWAY_METRICS_ENABLED,
  GATEWAY_SECURITY_AUTHENTICATION,
  GATEWAY_SECURITY_USERS,
  GATEWAY_SECURITY_TOKENS,
  GATEWAY_SECURITY_TRUSTED_HEADER_NAME,
  GATEWAY_CLUSTERS,
] as const
