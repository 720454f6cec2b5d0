import { type TableBucket, type TablePath, tablePathToString } from '@sluice/core/metadata'
import type { MetadataResponse, PbBucketMetadata, PbServerNode } from '@sluice/core/rpc'

/** A server named in metadata. */
export interface ServerNode {
  readonly id: number
  readonly host: string
  readonly port: number
  readonly role: 'coordinator' | 'tablet'
}

/** Where one bucket lives: its leader (undefined while none is elected) and replicas. */
export interface BucketLocation {
  readonly bucket: number
  readonly leader: number | undefined
  readonly leaderEpoch: number | undefined
  readonly replicas: readonly number[]
  /** The in-sync replicas when the server tells them (Sluice does; Fluss 0.9.1 does not). */
  readonly isr?: readonly number[]
}

type Buckets = ReadonlyMap<number, BucketLocation>

interface TableEntry {
  readonly path: TablePath
  readonly tableId: number
  readonly schemaId: number
  /** Undefined for partitioned tables (buckets belong to partitions) and after invalidation. */
  readonly buckets: Buckets | undefined
}

interface PartitionEntry {
  readonly tableId: number
  readonly partitionId: number
  readonly partitionName: string
  readonly buckets: Buckets | undefined
}

const partitionKey = (tableId: number, name: string) => `${tableId}/${name}`

/**
 * An immutable snapshot of what the client knows about the cluster (Fluss's `Cluster`): the
 * coordinator, the tablet servers, and for each table or partition asked about, the leader of every
 * bucket. Updates return a new snapshot, so a reader never sees a half-applied refresh.
 */
export class Cluster {
  static readonly EMPTY = new Cluster(undefined, new Map(), new Map(), new Map())

  readonly #tablesByPath: ReadonlyMap<string, TableEntry>
  readonly #tablesById: ReadonlyMap<number, TableEntry>
  readonly #partitions: ReadonlyMap<number, PartitionEntry>
  readonly #partitionIds: ReadonlyMap<string, number>
  readonly #available = new Map<string, number[]>()

  private constructor(
    readonly coordinator: ServerNode | undefined,
    readonly tabletServers: ReadonlyMap<number, ServerNode>,
    tables: ReadonlyMap<string, TableEntry>,
    partitions: ReadonlyMap<number, PartitionEntry>,
  ) {
    this.#tablesByPath = tables
    this.#tablesById = new Map([...tables.values()].map(t => [t.tableId, t]))
    this.#partitions = partitions
    this.#partitionIds = new Map(
      [...partitions.values()].map(p => [partitionKey(p.tableId, p.partitionName), p.partitionId]),
    )
  }

  /** A server by id: a tablet server, or the coordinator. */
  node(id: number): ServerNode | undefined {
    return this.tabletServers.get(id) ?? (this.coordinator?.id === id ? this.coordinator : undefined)
  }

  /** The path of a table by id, when its metadata was fetched. */
  tablePath(tableId: number): TablePath | undefined {
    return this.#tablesById.get(tableId)?.path
  }

  tableId(path: TablePath): number | undefined {
    return this.#tablesByPath.get(tablePathToString(path))?.tableId
  }

  schemaId(path: TablePath): number | undefined {
    return this.#tablesByPath.get(tablePathToString(path))?.schemaId
  }

  partitionId(tableId: number, partitionName: string): number | undefined {
    return this.#partitionIds.get(partitionKey(tableId, partitionName))
  }

  partitionName(partitionId: number): string | undefined {
    return this.#partitions.get(partitionId)?.partitionName
  }

  bucketLocation(tb: TableBucket): BucketLocation | undefined {
    return this.#buckets(tb.tableId, tb.partitionId)?.get(tb.bucket)
  }

  /** The leader of a bucket, when both its id and its address are known. */
  leaderFor(tb: TableBucket): ServerNode | undefined {
    const leader = this.bucketLocation(tb)?.leader
    return leader === undefined ? undefined : this.tabletServers.get(leader)
  }

  /** Buckets of a table (or partition) whose leader is known, ascending; cached per snapshot. */
  availableBuckets(tableId: number, partitionId?: number): readonly number[] {
    const key = `${tableId}:${partitionId ?? '-'}`
    let cached = this.#available.get(key)
    if (cached === undefined) {
      const buckets = this.#buckets(tableId, partitionId)
      cached =
        buckets === undefined
          ? []
          : [...buckets.values()]
              .filter(b => b.leader !== undefined && this.tabletServers.has(b.leader))
              .map(b => b.bucket)
      cached.sort((a, b) => a - b)
      this.#available.set(key, cached)
    }
    return cached
  }

  /** This snapshot with a GET_METADATA answer applied on top. */
  withMetadata(response: MetadataResponse): Cluster {
    const servers =
      response.tabletServers.length > 0
        ? new Map(response.tabletServers.map(n => [n.nodeId, toNode(n, 'tablet')]))
        : this.tabletServers
    const coordinator =
      response.coordinatorServer === null
        ? this.coordinator
        : toNode(response.coordinatorServer, 'coordinator')
    const tables = new Map(this.#tablesByPath)
    for (const t of response.tableMetadata) {
      const path = { databaseName: t.tablePath.databaseName, tableName: t.tablePath.tableName }
      const buckets = t.bucketMetadata.length > 0 ? toBuckets(t.bucketMetadata) : undefined
      tables.set(tablePathToString(path), { path, tableId: t.tableId, schemaId: t.schemaId, buckets })
    }
    const partitions = new Map(this.#partitions)
    for (const p of response.partitionMetadata) {
      partitions.set(p.partitionId, {
        tableId: p.tableId,
        partitionId: p.partitionId,
        partitionName: p.partitionName,
        buckets: toBuckets(p.bucketMetadata),
      })
    }
    return new Cluster(coordinator, servers, tables, partitions)
  }

  /** This snapshot without the bucket locations of a table or partition (they are known to be stale). */
  withoutBuckets(tableId: number, partitionId?: number): Cluster {
    if (partitionId !== undefined) {
      const entry = this.#partitions.get(partitionId)
      if (entry?.buckets === undefined) return this
      const partitions = new Map(this.#partitions)
      partitions.set(partitionId, { ...entry, buckets: undefined })
      return new Cluster(this.coordinator, this.tabletServers, this.#tablesByPath, partitions)
    }
    const entry = this.#tablesById.get(tableId)
    if (entry?.buckets === undefined) return this
    const tables = new Map(this.#tablesByPath)
    tables.set(tablePathToString(entry.path), { ...entry, buckets: undefined })
    return new Cluster(this.coordinator, this.tabletServers, tables, this.#partitions)
  }

  /** This snapshot without a table and its partitions (dropped, or re-created with a new id). */
  withoutTable(path: TablePath): Cluster {
    const key = tablePathToString(path)
    const entry = this.#tablesByPath.get(key)
    if (entry === undefined) return this
    const tables = new Map(this.#tablesByPath)
    tables.delete(key)
    const partitions = new Map([...this.#partitions].filter(([, p]) => p.tableId !== entry.tableId))
    return new Cluster(this.coordinator, this.tabletServers, tables, partitions)
  }

  #buckets(tableId: number, partitionId: number | undefined): Buckets | undefined {
    if (partitionId !== undefined) {
      const p = this.#partitions.get(partitionId)
      return p?.tableId === tableId ? p.buckets : undefined
    }
    return this.#tablesById.get(tableId)?.buckets
  }
}

function toNode(n: PbServerNode, role: 'coordinator' | 'tablet'): ServerNode {
  return { id: n.nodeId, host: n.host, port: n.port, role }
}

function toBuckets(list: readonly PbBucketMetadata[]): Buckets {
  return new Map(
    list.map(b => [
      b.bucketId,
      {
        bucket: b.bucketId,
        leader: b.leaderId ?? undefined,
        leaderEpoch: b.leaderEpoch ?? undefined,
        replicas: b.replicaId,
        // Sluice servers send the ISR; Fluss servers (and older messages) do not.
        ...(b.isrId !== undefined && b.isrId.length > 0 ? { isr: b.isrId } : {}),
      },
    ]),
  )
}
