import type { BucketRecord, PartitionRecord, TableRecord } from '@sluice/core/control-plane'
import type { BucketRef } from '@sluice/core/metastore'
import type { PbPhysicalTablePathInit } from '@sluice/core/rpc'

export function bucketId(ref: BucketRef): string {
  return `${ref.tableId}:${ref.partitionId ?? '-'}:${ref.bucket}`
}

/**
 * What the active coordinator knows of the cluster (Fluss's CoordinatorContext): the visible tables
 * and partitions and every bucket's last known LeaderAndIsr, indexed by the servers holding its
 * replicas. Loaded from the catalog on activation and kept current by the coordinator's own
 * writes. ISR changes written by bucket leaders are not seen here: code that writes a bucket reads
 * it from the catalog first.
 */
export class CoordinatorContext {
  readonly #tables = new Map<number, TableRecord>()
  readonly #partitions = new Map<number, PartitionRecord>()
  readonly #buckets = new Map<string, BucketRecord>()
  readonly #byServer = new Map<number, Set<string>>()

  clear(): void {
    this.#tables.clear()
    this.#partitions.clear()
    this.#buckets.clear()
    this.#byServer.clear()
  }

  get bucketCount(): number {
    return this.#buckets.size
  }

  get partitionCount(): number {
    return this.#partitions.size
  }

  table(tableId: number): TableRecord | undefined {
    return this.#tables.get(tableId)
  }

  tables(): TableRecord[] {
    return [...this.#tables.values()]
  }

  partition(partitionId: number): PartitionRecord | undefined {
    return this.#partitions.get(partitionId)
  }

  putTable(table: TableRecord): void {
    this.#tables.set(table.tableId, table)
  }

  /** Forgets a table with its partitions and buckets. */
  removeTable(tableId: number): void {
    this.#tables.delete(tableId)
    for (const p of [...this.#partitions.values()])
      if (p.tableId === tableId) this.#partitions.delete(p.partitionId)
    for (const b of [...this.#buckets.values()]) if (b.ref.tableId === tableId) this.removeBucket(b.ref)
  }

  putPartition(partition: PartitionRecord): void {
    this.#partitions.set(partition.partitionId, partition)
  }

  /** Forgets a partition with its buckets. */
  removePartition(partitionId: number): void {
    this.#partitions.delete(partitionId)
    for (const b of [...this.#buckets.values()])
      if (b.ref.partitionId === partitionId) this.removeBucket(b.ref)
  }

  bucket(ref: BucketRef): BucketRecord | undefined {
    return this.#buckets.get(bucketId(ref))
  }

  buckets(): BucketRecord[] {
    return [...this.#buckets.values()]
  }

  putBucket(record: BucketRecord): void {
    const id = bucketId(record.ref)
    const previous = this.#buckets.get(id)
    for (const server of previous?.leaderAndIsr.replicas ?? []) this.#byServer.get(server)?.delete(id)
    this.#buckets.set(id, record)
    for (const server of record.leaderAndIsr.replicas) {
      let ids = this.#byServer.get(server)
      if (ids === undefined) {
        ids = new Set()
        this.#byServer.set(server, ids)
      }
      ids.add(id)
    }
  }

  removeBucket(ref: BucketRef): void {
    const id = bucketId(ref)
    const previous = this.#buckets.get(id)
    for (const server of previous?.leaderAndIsr.replicas ?? []) this.#byServer.get(server)?.delete(id)
    this.#buckets.delete(id)
  }

  /** Buckets with a replica on the server. */
  bucketsOnServer(serverId: number): BucketRecord[] {
    return [...(this.#byServer.get(serverId) ?? [])].map(id => this.#buckets.get(id) as BucketRecord)
  }

  /** The table path (and partition name) of a bucket, as NotifyLeaderAndIsr names it. */
  physicalPath(ref: BucketRef): PbPhysicalTablePathInit | undefined {
    const table = this.#tables.get(ref.tableId)
    if (table === undefined) return undefined
    const { databaseName, tableName } = table.tablePath
    if (ref.partitionId === null || ref.partitionId === undefined) return { databaseName, tableName }
    const partition = this.#partitions.get(ref.partitionId)
    return partition === undefined
      ? undefined
      : { databaseName, tableName, partitionName: partition.partitionName }
  }
}
