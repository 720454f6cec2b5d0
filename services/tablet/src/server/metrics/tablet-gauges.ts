import type { Labels, MetricRegistry } from '@sluice/core/metrics'
import type { KvManager } from '../../kv/index.js'
import type { RemoteLogManager } from '../../remote/index.js'
import type { Replica } from '../../replica/replica.js'
import type { ReplicaManager } from '../../replica/replica-manager.js'

/** What the scrape-time gauges read. */
export interface TabletGaugeSources {
  readonly replicaManager: ReplicaManager
  readonly kvManager: KvManager
  readonly remoteLogManager: RemoteLogManager | null
}

/** `database`, `table`, `partition` (empty when not partitioned) and `bucket` of a replica. */
export function bucketLabels(r: Replica): Labels {
  const { tablePath, partitionName } = r.physicalTablePath
  return {
    database: tablePath.databaseName,
    table: tablePath.tableName,
    partition: partitionName ?? '',
    bucket: String(r.tableBucket.bucket),
  }
}

function* perBucket(replicas: readonly Replica[], value: (r: Replica) => number): Iterable<[Labels, number]> {
  for (const r of replicas) yield [bucketLabels(r), value(r)]
}

/**
 * Fluss's tablet-server gauges, read from the replicas when scraped: replica and leader counts,
 * under-replicated / under-min-ISR / at-min-ISR buckets, writer ids, delayed operations, logical
 * storage, per-bucket log offsets and sizes, and the remote log and KV snapshot counters.
 */
export function registerTabletGauges(registry: MetricRegistry, s: TabletGaugeSources): void {
  const replicas = () => s.replicaManager.replicas()
  const leaders = () => replicas().filter(r => r.isLeader)
  const count = (f: (r: Replica) => boolean) => () => replicas().filter(f).length
  registry.gauge('replicaCount', 'Replicas (leaders and followers) on this server', () => replicas().length)
  registry.gauge('leaderCount', 'Leader replicas on this server', () => leaders().length)
  registry.gauge(
    'underReplicated',
    'Buckets led here whose ISR is smaller than their assignment',
    count(r => r.isUnderReplicated),
  )
  registry.gauge(
    'underMinIsr',
    'Buckets led here below log.replica.min-in-sync-replicas-number',
    count(r => r.isUnderMinIsr),
  )
  registry.gauge(
    'atMinIsr',
    'Buckets led here exactly at the minimum ISR',
    count(r => r.isLeader && r.isr.length === r.minInSyncReplicas),
  )
  registry.gauge('writerIdCount', 'Writer ids with state in the logs led here', () =>
    leaders().reduce((n, r) => n + r.logTablet.writerCount, 0),
  )
  registry.gauge(
    'delayedWriteCount',
    'acks=all writes waiting for replication',
    () => s.replicaManager.delayedWrites.watched,
  )
  registry.gauge(
    'delayedFetchCount',
    'Fetches waiting for data (long poll)',
    () => s.replicaManager.delayedFetches.watched,
  )
  registry.gauge('logicalStorage_logSize', 'Bytes of the local logs on this server', () =>
    replicas().reduce((n, r) => n + r.logTablet.sizeInBytes, 0),
  )
  registry.gauge('table_bucket_log_endOffset', 'Log end offset of each bucket', () =>
    perBucket(replicas(), r => r.logTablet.logEndOffset),
  )
  registry.gauge('table_bucket_log_highWatermark', 'High watermark of each bucket', () =>
    perBucket(replicas(), r => r.logTablet.highWatermark),
  )
  registry.gauge('table_bucket_log_numSegments', 'Local segments of each bucket', () =>
    perBucket(replicas(), r => r.logTablet.segmentCount),
  )
  registry.gauge('table_bucket_logicalStorage_logSize', 'Bytes of the local log of each bucket', () =>
    perBucket(replicas(), r => r.logTablet.sizeInBytes),
  )
  registerRemoteGauges(registry, s)
}

function registerRemoteGauges(registry: MetricRegistry, s: TabletGaugeSources): void {
  const remote = s.remoteLogManager
  if (remote !== null) {
    // Leaders with a remote log task: what of the log below the high watermark is not in remote
    // storage yet (the active segment and sealed segments not uploaded).
    const uploading = () =>
      s.replicaManager.replicas().flatMap(r => {
        const reader = r.isLeader ? remote.reader(r.tableBucket) : null
        return reader === null ? [] : [{ r, remoteEnd: reader.remoteLogEndOffset }]
      })
    registry.gauge(
      'table_bucket_remoteLogEndOffset',
      'End offset of the remote log of each bucket led here (-1: nothing copied yet)',
      () => {
        const ends = new Map(uploading().map(({ r, remoteEnd }) => [r, remoteEnd]))
        return perBucket([...ends.keys()], r => ends.get(r) ?? -1)
      },
    )
    registry.gauge(
      'table_bucket_remoteLogCopyLag',
      'Offsets below the high watermark of each bucket led here not yet copied to remote storage',
      () => {
        const all = uploading()
        const lag = new Map(
          all.map(({ r, remoteEnd }) => [
            r,
            Math.max(0, r.logTablet.highWatermark - Math.max(remoteEnd, r.logTablet.logStartOffset)),
          ]),
        )
        return perBucket(
          all.map(u => u.r),
          r => lag.get(r) ?? 0,
        )
      },
    )
    const stat =
      (key: 'bytesUploaded' | 'segmentsUploaded' | 'uploadErrors' | 'deleteErrors' | 'segmentsExpired') =>
      () =>
        remote.stats()[key]
    registry.countReading('remoteLogCopyBytes', 'Log bytes copied to remote storage', stat('bytesUploaded'))
    registry.countReading(
      'remoteLogCopyRequests',
      'Segments copied to remote storage',
      stat('segmentsUploaded'),
    )
    registry.countReading(
      'remoteLogCopyError',
      'Failed segment copies to remote storage',
      stat('uploadErrors'),
    )
    registry.countReading(
      'remoteLogDeleteRequests',
      'Remote segments deleted by TTL',
      stat('segmentsExpired'),
    )
    registry.countReading('remoteLogDeleteError', 'Failed remote deletions', stat('deleteErrors'))
  }
  const snapshots = () =>
    [...s.kvManager.leaders()].flatMap(b => (b.snapshotter ? [b.snapshotter.stats()] : []))
  const sum = (key: 'committed' | 'failures' | 'bytesUploaded') => () =>
    snapshots().reduce((n, st) => n + st[key], 0)
  registry.countReading(
    'kvSnapshot_committed',
    'KV snapshots committed by the buckets led here',
    sum('committed'),
  )
  registry.countReading(
    'kvSnapshot_failures',
    'KV snapshot runs that failed (retried at the next interval)',
    sum('failures'),
  )
  registry.countReading(
    'remoteKvCopyBytes',
    'KV snapshot bytes uploaded by the buckets led here',
    sum('bytesUploaded'),
  )
  registry.gauge(
    'kvSnapshot_lagMs',
    'Longest time since the last committed KV snapshot of a bucket led here (ms)',
    () => {
      const now = Date.now()
      return snapshots().reduce(
        (max, st) => Math.max(max, st.lastSnapshotAtMs === null ? 0 : now - st.lastSnapshotAtMs),
        0,
      )
    },
  )
}
