import { option } from './option.js'

/** Per-process server options: identity, listeners, RPC limits, buffers, shutdown, disk protection. */

/** Fluss's `Duration.ofNanos(Long.MAX_VALUE)` in milliseconds: wait without a deadline. */
export const UNBOUNDED_WAIT_MS = 9_223_372_036_854

/** Comma-separated 'NAME://host:port' entries. */
const LISTENERS =
  /^\s*[A-Za-z0-9_-]+:\/\/(\[[0-9A-Fa-f:.]+\]|[^\s:,[\]]+):\d{1,5}\s*(,\s*[A-Za-z0-9_-]+:\/\/(\[[0-9A-Fa-f:.]+\]|[^\s:,[\]]+):\d{1,5}\s*)*$/
const LISTENERS_FORM = "comma-separated 'NAME://host:port' entries"

export const BIND_LISTENERS = option('bind.listeners')
  .string()
  .matching(LISTENERS, LISTENERS_FORM)
  .noDefault()
  .inScope('server')
  .description(
    "Addresses the server listens on, as comma-separated 'NAME://host:port' entries with unique names. Port 0 picks a free port.",
  )

export const ADVERTISED_LISTENERS = option('advertised.listeners')
  .string()
  .matching(LISTENERS, LISTENERS_FORM)
  .noDefault()
  .inScope('server')
  .description(
    'Addresses published to clients and other servers, in the `bind.listeners` form. Unset publishes `bind.listeners`; required when those are not reachable from outside (e.g. behind a load balancer).',
  )

export const INTERNAL_LISTENER_NAME = option('internal.listener.name')
  .string()
  .default('FLUSS')
  .inScope('server')
  .description('The listener servers use to talk to each other.')

export const TABLET_SERVER_ID = option('tablet-server.id')
  .int()
  .noDefault()
  .range(0)
  .inScope('server')
  .description('The id of this tablet server, unique in the cluster. Required on tablet servers.')

export const TABLET_SERVER_RACK = option('tablet-server.rack')
  .string()
  .noDefault()
  .inScope('server')
  .description(
    'Rack (or availability zone) of this tablet server; replicas of one bucket are spread over racks.',
  )

export const DATA_DIR = option('data.dir')
  .string()
  .default('/tmp/fluss-data')
  .inScope('server')
  .description('Local directory holding log segments and RocksDB instances of this tablet server.')

export const SERVER_IO_POOL_SIZE = option('server.io-pool.size')
  .int()
  .default(10)
  .range(1, 1024)
  .inScope('server')
  .withFallbackKeys('coordinator.io-pool.size')
  .notSupported('blocking I/O is not limited by a server-wide pool')
  .description(
    'Most blocking I/O operations (snapshot and remote-log transfers, file cleanup) a server runs at once.',
  )

export const SERVER_WRITER_ID_EXPIRATION_TIME = option('server.writer-id.expiration-time')
  .duration()
  .default('7d')
  .range(1)
  .inScope('server')
  .description('Idempotence state of a writer id is dropped after this long without a write from it.')

export const SERVER_WRITER_ID_EXPIRATION_CHECK_INTERVAL = option('server.writer-id.expiration-check-interval')
  .duration()
  .default('10min')
  .range(1)
  .inScope('server')
  .notSupported('expired writer ids are removed when a log is loaded, not on a timer')
  .description('How often expired writer ids are removed.')

export const SERVER_BUFFER_MEMORY_SIZE = option('server.buffer.memory-size')
  .memory()
  .default('256mb')
  .range('1kb', '64gb')
  .inScope('server')
  .notSupported('the server has no write buffer pool')
  .description(
    'Total memory a server may use to buffer rows it writes, e.g. changelog batches of primary-key tables.',
  )

export const SERVER_BUFFER_PAGE_SIZE = option('server.buffer.page-size')
  .memory()
  .default('128kb')
  .range('1kb', '64mb')
  .inScope('server')
  .notSupported('the server has no write buffer pool')
  .description('Page size of the server write buffer (`server.buffer.memory-size`).')

export const SERVER_BUFFER_PER_REQUEST_MEMORY_SIZE = option('server.buffer.per-request-memory-size')
  .memory()
  .default('16mb')
  .range('1kb', '1gb')
  .inScope('server')
  .notSupported('the server has no write buffer pool')
  .description('Least memory taken from the server write buffer at once; at least `server.buffer.page-size`.')

export const SERVER_BUFFER_WAIT_TIMEOUT = option('server.buffer.wait-timeout')
  .duration()
  .default(UNBOUNDED_WAIT_MS)
  .documentDefaultAs('unbounded')
  .range(0, UNBOUNDED_WAIT_MS)
  .inScope('server')
  .notSupported('the server has no write buffer pool')
  .description(
    "How long a write waits for server buffer memory. Fluss's default is unbounded; values above 2^31-1 ms mean no timer.",
  )

export const TABLET_SERVER_CONTROLLED_SHUTDOWN_MAX_RETRIES = option(
  'tablet-server.controlled-shutdown.max-retries',
)
  .int()
  .default(3)
  .range(0, 100)
  .inScope('server')
  .description('Attempts to move leadership away during controlled shutdown before shutting down anyway.')

export const TABLET_SERVER_CONTROLLED_SHUTDOWN_RETRY_INTERVAL = option(
  'tablet-server.controlled-shutdown.retry-interval',
)
  .duration()
  .default('1s')
  .range(0, '10min')
  .inScope('server')
  .description('Pause between controlled-shutdown attempts.')

export const NETTY_SERVER_MAX_QUEUED_REQUESTS = option('netty.server.max-queued-requests')
  .int()
  .default(500)
  .range(1, 1_000_000)
  .inScope('server')
  .notSupported('requests are not queued by count before the server stops reading')
  .description('Requests queued for processing before the server stops reading from connections.')

export const NETTY_SERVER_MAX_REQUEST_SIZE = option('netty.server.max-request-size')
  .memory()
  .default('100mb')
  .range('1kb', 2 ** 31 - 1)
  .inScope('server')
  .description('Largest RPC frame a server accepts; larger frames close the connection.')

export const NETTY_CONNECTION_MAX_IDLE_TIME = option('netty.connection.max-idle-time')
  .duration()
  .default('10min')
  .range(1)
  .inScope('server')
  .description('Connections idle for this long are closed.')

export const SERVER_DATA_DISK_WRITE_LIMIT_RATIO = option('server.data-disk.write-limit-ratio')
  .double()
  .default(0.85)
  .range(0, 1)
  .inScope('server')
  .notSupported('tablet servers do not check their data disk usage')
  .description(
    'Data disk usage at which the tablet server refuses writes (1.0 turns the protection off; Fluss 1.0 key).',
  )

export const SERVER_DATA_DISK_WRITE_RECOVER_RATIO = option('server.data-disk.write-recover-ratio')
  .double()
  .default(0.8)
  .range(0, 1)
  .inScope('server')
  .notSupported('tablet servers do not check their data disk usage')
  .description('Data disk usage at or below which refused writes are accepted again; below the limit ratio.')

export const SERVER_DATA_DISK_CHECK_INTERVAL = option('server.data-disk.check-interval')
  .duration()
  .default('30s')
  .range(1, '1h')
  .inScope('server')
  .notSupported('tablet servers do not check their data disk usage')
  .description('How often the data disk usage is sampled.')

export const SERVER_OPTIONS = [
  BIND_LISTENERS,
  ADVERTISED_LISTENERS,
  INTERNAL_LISTENER_NAME,
  TABLET_SERVER_ID,
  TABLET_SERVER_RACK,
  DATA_DIR,
  SERVER_IO_POOL_SIZE,
  SERVER_WRITER_ID_EXPIRATION_TIME,
  SERVER_WRITER_ID_EXPIRATION_CHECK_INTERVAL,
  SERVER_BUFFER_MEMORY_SIZE,
  SERVER_BUFFER_PAGE_SIZE,
  SERVER_BUFFER_PER_REQUEST_MEMORY_SIZE,
  SERVER_BUFFER_WAIT_TIMEOUT,
  TABLET_SERVER_CONTROLLED_SHUTDOWN_MAX_RETRIES,
  TABLET_SERVER_CONTROLLED_SHUTDOWN_RETRY_INTERVAL,
  NETTY_SERVER_MAX_QUEUED_REQUESTS,
  NETTY_SERVER_MAX_REQUEST_SIZE,
  NETTY_CONNECTION_MAX_IDLE_TIME,
  SERVER_DATA_DISK_WRITE_LIMIT_RATIO,
  SERVER_DATA_DISK_WRITE_RECOVER_RATIO,
  SERVER_DATA_DISK_CHECK_INTERVAL,
] as const
