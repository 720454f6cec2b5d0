import type { Canonical, TableSpec } from '../canonical.js'

/** Per-bucket outcome of a dataset read: offsets and a hash of the ids in offset order. */
export interface BucketSummary {
  readonly earliest: number
  readonly latest: number
  readonly records: number
  /** `h = h * 31 + id` over the ids in offset order, as an unsigned 32-bit integer. */
  readonly idHash: number
}

/** Result of `verify`: the drivers read, compare with the dataset and report the first mismatches. */
export interface VerifyResult {
  readonly ok: boolean
  readonly rows: number
  readonly projectedRows?: number
  readonly buckets: Readonly<Record<string, BucketSummary>>
  readonly mismatches: readonly string[]
}

export interface DatasetRange {
  readonly start?: number
  readonly salt?: number
}

/** One KV operation: a full upsert, a partial update (`columns`), a delete, or a flush. */
export type KvOp =
  | {
      readonly op: 'upsert' | 'delete'
      readonly row: readonly Canonical[]
      readonly columns?: readonly string[]
    }
  | { readonly op: 'flush' }

/** A record of a log or changelog read, with the partition name (null when not partitioned). */
export interface LogRecordOut {
  readonly bucket: number
  readonly partition: string | null
  readonly offset: number
  /** `+A`, `+I`, `-U`, `+U` or `-D`. */
  readonly change: string
  readonly row: Canonical[]
}

/** What a read of one bucket from a given offset returned. */
export interface ScanFromResult {
  readonly records: number
  /** Offset of the first record read (-1 when none). */
  readonly firstOffset: number
  readonly nextOffset: number
  readonly latest: number
}

export interface PartitionOut {
  readonly id: number
  readonly name: string
}

/** What every client driver (Java, Python, our SDK) can do against a cluster. */
export interface Driver {
  readonly name: string
  createDatabase(db: string): Promise<void>
  createTable(db: string, table: string, spec: TableSpec): Promise<void>
  /** Appends dataset rows [start, start + n) of version `salt`. */
  write(db: string, table: string, n: number, range?: DatasetRange): Promise<void>
  /** Reads everything from the earliest offsets and compares it with the dataset (then projected). */
  verify(
    db: string,
    table: string,
    n: number,
    range?: DatasetRange & { project?: readonly string[] },
  ): Promise<VerifyResult>
  /** Appends explicit rows (canonical texts, all columns). */
  append(db: string, table: string, rows: readonly (readonly Canonical[])[]): Promise<void>
  upsert(db: string, table: string, ops: readonly KvOp[]): Promise<void>
  /** One row (or null) per key; with `by`, a list of rows per prefix key. */
  lookup(
    db: string,
    table: string,
    keys: readonly (readonly Canonical[])[],
    by?: readonly string[],
  ): Promise<unknown[]>
  /** Reads one bucket from `offset` up to its latest offset. */
  scanFrom(db: string, table: string, bucket: number, offset: number): Promise<ScanFromResult>
  /** Every record of the table's log from the earliest offsets (stops after `expected` + a quiet poll). */
  changelog(db: string, table: string, expected: number, project?: readonly string[]): Promise<LogRecordOut[]>
  partitions(db: string, table: string): Promise<PartitionOut[]>
  /** Bucket → offset: the log start, the high watermark, or the first offset at/after a time (ms). */
  offsets(db: string, table: string, spec: 'earliest' | 'latest' | number): Promise<Record<string, number>>
  createPartition(db: string, table: string, spec: Readonly<Record<string, string>>): Promise<void>
}
