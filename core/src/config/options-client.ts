import { option } from './option.js'
import { UNBOUNDED_WAIT_MS } from './options-server.js'

/** Client options: connection, security and the writer. Read and lookup options are in options-scanner.ts. */

export const NO_KEY_ASSIGNERS = ['STICKY', 'ROUND_ROBIN'] as const
export type NoKeyAssigner = (typeof NO_KEY_ASSIGNERS)[number]
/** `all` and `-1` both wait for the in-sync replicas; `1` for the leader; `0` for nothing. */
export const WRITER_ACKS = ['all', '-1', '0', '1'] as const
export type WriterAcks = (typeof WRITER_ACKS)[number]

const client = (key: string) => option(key).inScope('client')

export const BOOTSTRAP_SERVERS = client('bootstrap.servers')
  .list()
  .noDefault()
  .description(
    "Servers to contact first, as 'host:port' entries separated by commas; the client learns the rest of the cluster from them.",
  )

export const CLIENT_ID = client('client.id')
  .string()
  .default('')
  .notSupported('the Sluice client sends no client id')
  .description('Name sent with every request so that server logs can tell applications apart.')

export const CLIENT_CONNECT_TIMEOUT = client('client.connect-timeout')
  .duration()
  .default('120s')
  .range(1, '1h')
  .description('Longest wait for a TCP connection to a server.')

export const CLIENT_REQUEST_TIMEOUT = client('client.request-timeout')
  .duration()
  .default('30s')
  .range(1, '1h')
  .description(
    'Longest wait for the response to one request, including acks=all writes waiting for replication.',
  )

export const CLIENT_METRICS_ENABLED = client('client.metrics.enabled')
  .boolean()
  .default(false)
  .notSupported('the Sluice client reports no metrics')
  .description('Collect client metrics.')

export const CLIENT_WRITER_BUFFER_MEMORY_SIZE = client('client.writer.buffer.memory-size')
  .memory()
  .default('64mb')
  .range('1kb', '64gb')
  .description('Total memory the writer uses to buffer rows not yet acknowledged.')

export const CLIENT_WRITER_BUFFER_PAGE_SIZE = client('client.writer.buffer.page-size')
  .memory()
  .default('128kb')
  .range('1kb', '64mb')
  .notSupported('the Sluice client does not read this option')
  .description('Page size of the writer buffer.')

export const CLIENT_WRITER_BUFFER_PER_REQUEST_MEMORY_SIZE = client(
  'client.writer.buffer.per-request-memory-size',
)
  .memory()
  .default('16mb')
  .range('1kb', '1gb')
  .notSupported('the Sluice client does not read this option')
  .description('Least memory the writer takes from its buffer at once; at least the page size.')

export const CLIENT_WRITER_BUFFER_WAIT_TIMEOUT = client('client.writer.buffer.wait-timeout')
  .duration()
  .default(UNBOUNDED_WAIT_MS)
  .documentDefaultAs('unbounded')
  .range(0, UNBOUNDED_WAIT_MS)
  .notSupported('the Sluice client does not read this option')
  .description(
    "How long a write waits for buffer memory. Fluss's default is unbounded (backpressure); values above 2^31-1 ms mean no timer.",
  )

export const CLIENT_WRITER_BATCH_SIZE = client('client.writer.batch-size')
  .memory()
  .default('2mb')
  .range('1kb', '1gb')
  .description('Target size of one record batch per bucket; a full batch is sent at once.')

export const CLIENT_WRITER_DYNAMIC_BATCH_SIZE_ENABLED = client('client.writer.dynamic-batch-size.enabled')
  .boolean()
  .default(true)
  .notSupported('the Sluice client does not read this option')
  .description(
    'Size batches from recent write volume of each table or partition, between the page size and `client.writer.batch-size`.',
  )

export const CLIENT_WRITER_BATCH_TIMEOUT = client('client.writer.batch-timeout')
  .duration()
  .default('100ms')
  .range(0, '1min')
  .description('Longest a batch that is not full waits for more rows before it is sent.')

export const CLIENT_WRITER_BUCKET_NO_KEY_ASSIGNER = client('client.writer.bucket.no-key-assigner')
  .enum(NO_KEY_ASSIGNERS)
  .default('STICKY')
  .description(
    'Bucket choice for tables without a bucket key: STICKY keeps one bucket until its batch is sent, ROUND_ROBIN rotates per row.',
  )

export const CLIENT_WRITER_ACKS = client('client.writer.acks')
  .enum(WRITER_ACKS)
  .default('all')
  .description(
    "Acknowledgement a write waits for: 'all' (or -1) waits until the in-sync replicas have it, '1' until the leader has it, '0' for nothing.",
  )

export const CLIENT_WRITER_REQUEST_MAX_SIZE = client('client.writer.request-max-size')
  .memory()
  .default('10mb')
  .range('1kb', 2 ** 31 - 1)
  .description('Largest write request; limits how many batches go into one request.')

export const CLIENT_WRITER_RETRIES = client('client.writer.retries')
  .int()
  .default(2 ** 31 - 1)
  .range(0)
  .description('Times a batch is resent after a retriable error.')

export const CLIENT_WRITER_ENABLE_IDEMPOTENCE = client('client.writer.enable-idempotence')
  .boolean()
  .default(true)
  .description(
    "Deduplicate resent batches with a writer id and sequence numbers so each row is written once. Needs retries > 0 and acks 'all'.",
  )

export const CLIENT_WRITER_MAX_INFLIGHT_REQUESTS_PER_BUCKET = client(
  'client.writer.max-inflight-requests-per-bucket',
)
  .int()
  .default(5)
  .range(1, 100)
  .description('Unacknowledged requests per bucket with idempotence on; more writes wait.')

export const CLIENT_WRITER_DYNAMIC_CREATE_PARTITION_ENABLED = client(
  'client.writer.dynamic-create-partition.enabled',
)
  .boolean()
  .default(true)
  .description('Create a missing partition when a row is written to it.')

export const CLIENT_OPTIONS = [
  BOOTSTRAP_SERVERS,
  CLIENT_ID,
  CLIENT_CONNECT_TIMEOUT,
  CLIENT_REQUEST_TIMEOUT,
  CLIENT_METRICS_ENABLED,
  CLIENT_WRITER_BUFFER_MEMORY_SIZE,
  CLIENT_WRITER_BUFFER_PAGE_SIZE,
  CLIENT_WRITER_BUFFER_PER_REQUEST_MEMORY_SIZE,
  CLIENT_WRITER_BUFFER_WAIT_TIMEOUT,
  CLIENT_WRITER_BATCH_SIZE,
  CLIENT_WRITER_DYNAMIC_BATCH_SIZE_ENABLED,
  CLIENT_WRITER_BATCH_TIMEOUT,
  CLIENT_WRITER_BUCKET_NO_KEY_ASSIGNER,
  CLIENT_WRITER_ACKS,
  CLIENT_WRITER_REQUEST_MAX_SIZE,
  CLIENT_WRITER_RETRIES,
  CLIENT_WRITER_ENABLE_IDEMPOTENCE,
  CLIENT_WRITER_MAX_INFLIGHT_REQUESTS_PER_BUCKET,
  CLIENT_WRITER_DYNAMIC_CREATE_PARTITION_ENABLED,
] as const
