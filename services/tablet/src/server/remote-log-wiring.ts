import { TABLE_DATALAKE_ENABLED } from '@sluice/core/config'
import type { TableBucket } from '@sluice/core/metadata'
import type { RemoteLogManager, RemoteLogReader, RemoteLogReplica } from '../remote/index.js'
import { remoteLogTableOptions } from '../remote/index.js'
import type { Replica } from '../replica/replica.js'
import type { LakeOffsetsCache } from './lake-offsets-cache.js'

export interface RemoteLogWiringOptions {
  readonly manager: RemoteLogManager
  readonly lakeOffsets: LakeOffsetsCache | null
  /** For primary-key buckets: the changelog offset of the newest KV snapshot. */
  readonly kvSnapshotOffset: (bucket: TableBucket) => number
  readonly warn: (message: string, error?: unknown) => void
}

/**
 * Connects the replicas' leadership to the RemoteLogManager: a leader registers its bucket's
 * upload task (again on every new leader epoch), a follower only the task that deletes local
 * segments already uploaded, a stopped replica neither; STOP_REPLICA with deleteRemote deletes the
 * bucket's remote log. Primary-key buckets keep the local changelog from their newest KV snapshot
 * on; lake tables keep remote segments the lake does not hold yet.
 */
export class RemoteLogWiring {
  constructor(private readonly options: RemoteLogWiringOptions) {}

  get enabled(): boolean {
    return this.options.manager.enabled
  }

  reader(bucket: TableBucket): RemoteLogReader | null {
    return this.options.manager.reader(bucket)
  }

  /** Registers the leader's task and waits for its manifest (KV recovery may read remote segments). */
  async onBecomeLeader(replica: Replica): Promise<void> {
    await this.options.manager.startLeader(this.#remoteReplica(replica))
  }

  async onBecomeFollower(replica: Replica): Promise<void> {
    await this.options.manager.stop(replica.tableBucket)
    // Stopped replicas (no leader) and deposed leaders waiting for news run no task.
    if (replica.leaderId !== null && !replica.isLeader) {
      this.options.manager.startFollower(this.#remoteReplica(replica))
    }
  }

  async onReplicaStopped(replica: Replica, _deleteLocal: boolean, deleteRemote: boolean): Promise<void> {
    if (deleteRemote) await this.options.manager.deleteRemoteLog(replica.tableBucket)
    else await this.options.manager.stop(replica.tableBucket)
  }

  #remoteReplica(replica: Replica): RemoteLogReplica {
    const { tableBucket, tableInfo } = replica
    const { lakeOffsets, kvSnapshotOffset, warn } = this.options
    const isLake = tableInfo.tableConfig.get(TABLE_DATALAKE_ENABLED)
    return {
      tableBucket,
      physicalTablePath: replica.physicalTablePath,
      log: replica.logTablet,
      leaderEpoch: replica.leaderEpoch,
      tableOptions: () => remoteLogTableOptions(tableInfo.tableConfig),
      ...(isLake && lakeOffsets !== null
        ? { lakeLogEndOffset: () => lakeOffsets.tieredOffset(tableBucket) }
        : {}),
      ...(tableInfo.hasPrimaryKey ? { minRetainOffset: () => kvSnapshotOffset(tableBucket) } : {}),
      onFenced: error => warn(`the remote log of ${replica.name} is written by a newer leader`, error),
    }
  }
}
