import { option } from './option.js'

/** Tablet server options of the log: segments, flushing, replication (follower fetcher), remote log. */

export const LOG_SEGMENT_FILE_SIZE = option('log.segment.file-size')
  .memory()
  .default('1gb')
  .range(1, '2gb')
  .inScope('server')
  .description('A log segment is rolled once it reaches this size; retention deletes whole segments.')

export const LOG_INDEX_FILE_SIZE = option('log.index.file-size')
  .memory()
  .default('10mb')
  .range(1, '2gb')
  .inScope('server')
  .description('Preallocated size of the offset index of a segment; it is trimmed when the segment rolls.')

export const LOG_INDEX_INTERVAL_SIZE = option('log.index.interval-size')
  .memory()
  .default('4kb')
  .range(1, '2gb')
  .inScope('server')
  .description(
    'Bytes of log between two offset index entries; smaller means a larger index and shorter scans.',
  )

export const LOG_FILE_PREALLOCATE = option('log.file-preallocate')
  .boolean()
  .default(false)
  .inScope('server')
  .notSupported('log segment files are not preallocated')
  .description('Preallocate segment files on disk when they are created.')

export const LOG_FLUSH_INTERVAL_MESSAGES = option('log.flush.interval-messages')
  .long()
  .default(Number.MAX_SAFE_INTEGER)
  .documentDefaultAs('unlimited (never forced)')
  .range(1)
  .inScope('server')
  .notSupported(
    'the log is not fsynced after a number of records; durability comes from replication and remote storage',
  )
  .description(
    "Force an fsync of the log after this many records (Fluss's default, effectively never, leaves flushing to the OS and relies on replication).",
  )

export const LOG_RETENTION_CHECK_INTERVAL = option('log.retention.check-interval')
  .duration()
  .default('5min')
  .range(1)
  .inScope('server')
  .description('How often local log segments are checked against the table TTLs (Fluss 1.0 key).')

export const LOG_REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL = option(
  'log.replica.high-watermark.checkpoint-interval',
)
  .duration()
  .default('5s')
  .range(1)
  .inScope('server')
  .description('How often the high watermarks of all replicas are written to disk.')

export const LOG_REPLICA_MAX_LAG_TIME = option('log.replica.max-lag-time')
  .duration()
  .default('30s')
  .range(1)
  .inScope('server')
  .description(
    'A follower that has not fetched, or not caught up with the leader, for this long is removed from the ISR.',
  )

export const LOG_REPLICA_WRITE_OPERATION_PURGE_NUMBER = option('log.replica.write-operation-purge-number')
  .int()
  .default(1000)
  .range(1)
  .inScope('server')
  .notSupported('waiting writes are dropped as soon as they complete, so there is no purge threshold')
  .description('Completed delayed writes (acks=all waits) kept before the waiting list is purged.')

export const LOG_REPLICA_FETCH_OPERATION_PURGE_NUMBER = option('log.replica.fetch-operation-purge-number')
  .int()
  .default(1000)
  .range(1)
  .inScope('server')
  .notSupported('waiting fetches are dropped as soon as they complete, so there is no purge threshold')
  .description('Completed delayed fetches (long polls) kept before the waiting list is purged.')

export const LOG_REPLICA_FETCHER_NUMBER = option('log.replica.fetcher-number')
  .int()
  .default(1)
  .range(1, 64)
  .inScope('server')
  .notSupported('a follower runs one fetcher per source tablet server')
  .description('Fetchers a follower runs per source tablet server to replicate logs.')

export const LOG_REPLICA_FETCH_BACKOFF_INTERVAL = option('log.replica.fetch.backoff-interval')
  .duration()
  .default('1s')
  .range(0, '10min')
  .inScope('server')
  .withFallbackKeys('log.replica.fetch-backoff-interval')
  .description('Pause of a follower fetcher after a fetch failed.')

export const LOG_REPLICA_FETCH_MAX_BYTES = option('log.replica.fetch.max-bytes')
  .memory()
  .default('16mb')
  .range(1, '1gb')
  .inScope('server')
  .withFallbackKeys('log.fetch.max-bytes')
  .description(
    'Most bytes a leader returns for one follower fetch; the first batch is returned whole even if larger, so fetches always progress.',
  )

export const LOG_REPLICA_FETCH_MAX_BYTES_FOR_BUCKET = option('log.replica.fetch.max-bytes-for-bucket')
  .memory()
  .default('1mb')
  .range(1, '1gb')
  .inScope('server')
  .withFallbackKeys('log.fetch.max-bytes-for-bucket')
  .description('Most bytes a leader returns for one bucket in a follower fetch.')

export const LOG_REPLICA_FETCH_MIN_BYTES = option('log.replica.fetch.min-bytes')
  .memory()
  .default('1b')
  .range(0, '1gb')
  .inScope('server')
  .description(
    'A follower fetch waits (up to `log.replica.fetch.wait-max-time`) until this many bytes are available.',
  )

export const LOG_REPLICA_FETCH_WAIT_MAX_TIME = option('log.replica.fetch.wait-max-time')
  .duration()
  .default('500ms')
  .range(0, '1min')
  .inScope('server')
  .description(
    'Longest a follower fetch waits for `log.replica.fetch.min-bytes`; keep it well below `log.replica.max-lag-time`.',
  )

export const LOG_REPLICA_MIN_IN_SYNC_REPLICAS_NUMBER = option('log.replica.min-in-sync-replicas-number')
  .int()
  .default(1)
  .range(1)
  .inScope('server')
  .description(
    'Fewest in-sync replicas an acks=all write needs; with fewer the write fails with NOT_ENOUGH_REPLICAS_EXCEPTION.',
  )

export const REMOTE_FS_WRITE_BUFFER_SIZE = option('remote.fs.write-buffer-size')
  .memory()
  .default('4kb')
  .range(1, '1gb')
  .inScope('server')
  .notSupported('remote storage is written through the AWS SDK, whose part sizes Sluice chooses')
  .description('Buffer size used when copying local files to remote storage.')

export const REMOTE_LOG_TASK_INTERVAL_DURATION = option('remote.log.task-interval-duration')
  .duration()
  .default('1min')
  .range(0)
  .inScope('server')
  .description(
    'How often sealed segments below the high watermark are uploaded and expired remote segments deleted. 0 disables remote log storage and its cleanup.',
  )

export const REMOTE_LOG_TASK_MAX_UPLOAD_SEGMENTS = option('remote.log.task-max-upload-segments')
  .int()
  .default(5)
  .range(1, 10_000)
  .inScope('server')
  .description('Most segments one bucket uploads per remote log task run (Fluss 1.0 key).')

export const REMOTE_LOG_INDEX_FILE_CACHE_SIZE = option('remote.log.index-file-cache-size')
  .memory()
  .default('1gb')
  .range(0, '1tb')
  .inScope('server')
  .notSupported('the remote index cache is not bounded by this size')
  .description('Local disk space for index files downloaded from remote storage.')

export const REMOTE_LOG_MANAGER_THREAD_POOL_SIZE = option('remote.log-manager.thread-pool-size')
  .int()
  .default(4)
  .range(1, 1024)
  .inScope('server')
  .notSupported('remote log tasks are not limited by a thread pool')
  .description('Remote log tasks (upload, index fetch, cleanup) that run at once.')

export const LOG_OPTIONS = [
  LOG_SEGMENT_FILE_SIZE,
  LOG_INDEX_FILE_SIZE,
  LOG_INDEX_INTERVAL_SIZE,
  LOG_FILE_PREALLOCATE,
  LOG_FLUSH_INTERVAL_MESSAGES,
  LOG_RETENTION_CHECK_INTERVAL,
  LOG_REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL,
  LOG_REPLICA_MAX_LAG_TIME,
  LOG_REPLICA_WRITE_OPERATION_PURGE_NUMBER,
  LOG_REPLICA_FETCH_OPERATION_PURGE_NUMBER,
  LOG_REPLICA_FETCHER_NUMBER,
  LOG_REPLICA_FETCH_BACKOFF_INTERVAL,
  LOG_REPLICA_FETCH_MAX_BYTES,
  LOG_REPLICA_FETCH_MAX_BYTES_FOR_BUCKET,
  LOG_REPLICA_FETCH_MIN_BYTES,
  LOG_REPLICA_FETCH_WAIT_MAX_TIME,
  LOG_REPLICA_MIN_IN_SYNC_REPLICAS_NUMBER,
  REMOTE_FS_WRITE_BUFFER_SIZE,
  REMOTE_LOG_TASK_INTERVAL_DURATION,
  REMOTE_LOG_TASK_MAX_UPLOAD_SEGMENTS,
  REMOTE_LOG_INDEX_FILE_CACHE_SIZE,
  REMOTE_LOG_MANAGER_THREAD_POOL_SIZE,
] as const
