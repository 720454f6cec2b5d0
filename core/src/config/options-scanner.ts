import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { option } from './option.js'

/** Client options of reads: log scanner, lookups, remote files. */

const client = (key: string) => option(key).inScope('client')

export const CLIENT_SCANNER_LOG_CHECK_CRC = client('client.scanner.log.check-crc')
  .boolean()
  .default(true)
  .description('Verify the CRC of every fetched log batch; turn off only to save CPU.')

export const CLIENT_SCANNER_LOG_MAX_POLL_RECORDS = client('client.scanner.log.max-poll-records')
  .int()
  .default(500)
  .range(1, 1_000_000)
  .description('Most records one poll() returns; fetched records beyond it wait for the next poll.')

export const CLIENT_SCANNER_LOG_FETCH_MAX_BYTES = client('client.scanner.log.fetch.max-bytes')
  .memory()
  .default('16mb')
  .range(1, '1gb')
  .description(
    'Most bytes a server returns for one client fetch; the first batch is returned whole even if larger, so fetches always progress.',
  )

export const CLIENT_SCANNER_LOG_FETCH_MAX_BYTES_FOR_BUCKET = client(
  'client.scanner.log.fetch.max-bytes-for-bucket',
)
  .memory()
  .default('1mb')
  .range(1, '1gb')
  .description('Most bytes a server returns for one bucket in a client fetch.')

export const CLIENT_SCANNER_LOG_FETCH_MIN_BYTES = client('client.scanner.log.fetch.min-bytes')
  .memory()
  .default('1b')
  .range(0, '1gb')
  .description(
    'A client fetch waits (up to `client.scanner.log.fetch.wait-max-time`) until this many bytes are available.',
  )

export const CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME = client('client.scanner.log.fetch.wait-max-time')
  .duration()
  .default('500ms')
  .range(0, '1min')
  .description('Longest a client fetch waits on the server for `client.scanner.log.fetch.min-bytes`.')

export const CLIENT_SCANNER_PARTITION_DISCOVERY_INTERVAL = client(
  'client.scanner.partition.discovery-interval',
)
  .duration()
  .default('1min')
  .range(0, '1d')
  .description(
    'How often a log scanner reading all partitions of a table (`subscribeAllPartitions`) lists them, to subscribe new partitions from their earliest offset and end the subscriptions of dropped ones; 0 lists them only once. Sluice SDK key (the Fluss Flink source calls it `scan.partition.discovery.interval`).',
  )

export const CLIENT_SCANNER_REMOTE_LOG_PREFETCH_NUM = client('client.scanner.remote-log.prefetch-num')
  .int()
  .default(4)
  .range(1, 1000)
  .notSupported('the Sluice client does not read this option')
  .description('Remote log segments a scanner downloads ahead into local temporary files.')

export const CLIENT_SCANNER_IO_TMPDIR = client('client.scanner.io.tmpdir')
  .string()
  .machineDefault(join(tmpdir(), 'fluss'), "'fluss' in the system temp directory")
  .notSupported('the Sluice client does not read this option')
  .description('Local directory for files a scanner downloads (KV snapshots, remote log segments).')

export const CLIENT_REMOTE_FILE_DOWNLOAD_THREAD_NUM = client('client.remote-file.download-thread-num')
  .int()
  .default(3)
  .range(1, 256)
  .notSupported('the Sluice client does not read this option')
  .description('Remote files a client downloads at once.')

export const CLIENT_FILESYSTEM_SECURITY_TOKEN_RENEWAL_BACKOFF = client(
  'client.filesystem.security.token.renewal.backoff',
)
  .duration()
  .default('1h')
  .range(1, '1d')
  .notSupported('the Sluice client does not read this option')
  .description('Wait before trying again after fetching remote storage credentials failed.')

export const CLIENT_FILESYSTEM_SECURITY_TOKEN_RENEWAL_TIME_RATIO = client(
  'client.filesystem.security.token.renewal.time-ratio',
)
  .double()
  .default(0.75)
  .range(0, 1)
  .notSupported('the Sluice client does not read this option')
  .description('Share of a credential lifetime after which new remote storage credentials are fetched.')

export const CLIENT_LOOKUP_QUEUE_SIZE = client('client.lookup.queue-size')
  .int()
  .default(25_600)
  .range(1, 10_000_000)
  .description('Most lookups waiting to be sent; more lookups wait for room.')

export const CLIENT_LOOKUP_MAX_BATCH_SIZE = client('client.lookup.max-batch-size')
  .int()
  .default(128)
  .range(1, 100_000)
  .description('Most keys merged into one lookup request.')

export const CLIENT_LOOKUP_MAX_INFLIGHT_REQUESTS = client('client.lookup.max-inflight-requests')
  .int()
  .default(128)
  .range(1, 100_000)
  .description('Most lookup requests awaiting a response.')

export const CLIENT_LOOKUP_BATCH_TIMEOUT = client('client.lookup.batch-timeout')
  .duration()
  .default('100ms')
  .range(0, '1min')
  .description('Longest a lookup batch that is not full waits before it is sent.')

export const CLIENT_LOOKUP_MAX_RETRIES = client('client.lookup.max-retries')
  .int()
  .default(2 ** 31 - 1)
  .range(0)
  .description('Times a lookup is resent after a retriable error.')

export const SCANNER_OPTIONS = [
  CLIENT_SCANNER_LOG_CHECK_CRC,
  CLIENT_SCANNER_LOG_MAX_POLL_RECORDS,
  CLIENT_SCANNER_LOG_FETCH_MAX_BYTES,
  CLIENT_SCANNER_LOG_FETCH_MAX_BYTES_FOR_BUCKET,
  CLIENT_SCANNER_LOG_FETCH_MIN_BYTES,
  CLIENT_SCANNER_LOG_FETCH_WAIT_MAX_TIME,
  CLIENT_SCANNER_PARTITION_DISCOVERY_INTERVAL,
  CLIENT_SCANNER_REMOTE_LOG_PREFETCH_NUM,
  CLIENT_SCANNER_IO_TMPDIR,
  CLIENT_REMOTE_FILE_DOWNLOAD_THREAD_NUM,
  CLIENT_FILESYSTEM_SECURITY_TOKEN_RENEWAL_BACKOFF,
  CLIENT_FILESYSTEM_SECURITY_TOKEN_RENEWAL_TIME_RATIO,
  CLIENT_LOOKUP_QUEUE_SIZE,
  CLIENT_LOOKUP_MAX_BATCH_SIZE,
  CLIENT_LOOKUP_MAX_INFLIGHT_REQUESTS,
  CLIENT_LOOKUP_BATCH_TIMEOUT,
  CLIENT_LOOKUP_MAX_RETRIES,
] as const
