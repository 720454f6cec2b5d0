import type { TableBucket } from '@sluice/core/metadata'
import type { ServerEndpoint } from '../control-plane/control-plane.js'

interface TableEntry {
  numBuckets: number
  readonly partitions: Set<number>
}

/**
 * What this server knows of the cluster without asking the control plane (Fluss's
 * `TabletServerMetadataCache`): other tablet servers' endpoints and which tables, partitions and
 * buckets exist. Fed by UPDATE_METADATA and by the replicas this server hosts. Used to tell
 * NOT_LEADER_OR_FOLLOWER (a bucket that exists elsewhere) from UNKNOWN_TABLE_OR_BUCKET_EXCEPTION,
 * and to find a leader's address for the replica fetcher.
 */
export class TabletMetadataCache {
  readonly #servers = new Map<number, readonly ServerEndpoint[]>()
  readonly #tables = new Map<number, TableEntry>()

  setServer(serverId: number, endpoints: readonly ServerEndpoint[]): void {
    this.#servers.set(serverId, endpoints)
  }

  /** The endpoints of a tablet server, as last announced. */
  serverEndpoints(serverId: number): readonly ServerEndpoint[] | undefined {
    return this.#servers.get(serverId)
  }

  addTable(tableId: number, numBuckets: number): void {
    const entry = this.#tables.get(tableId)
    if (entry === undefined) this.#tables.set(tableId, { numBuckets, partitions: new Set() })
    else entry.numBuckets = Math.max(entry.numBuckets, numBuckets)
  }

  addPartition(tableId: number, partitionId: number, numBuckets: number): void {
    this.addTable(tableId, numBuckets)
    this.#tables.get(tableId)?.partitions.add(partitionId)
  }

  removeTable(tableId: number): void {
    this.#tables.delete(tableId)
  }

  /** Forgets the table (or, for a partition's bucket, the partition) a dropped bucket belonged to. */
  removeDropped(bucket: TableBucket): void {
    if (bucket.partitionId === undefined) this.removeTable(bucket.tableId)
    else this.#tables.get(bucket.tableId)?.partitions.delete(bucket.partitionId)
  }

  /** Whether the bucket is known to exist in the cluster. */
  contains(bucket: TableBucket): boolean {
    const entry = this.#tables.get(bucket.tableId)
    if (entry === undefined || bucket.bucket < 0 || bucket.bucket >= entry.numBuckets) return false
    return bucket.partitionId === undefined || entry.partitions.has(bucket.partitionId)
  }
}
