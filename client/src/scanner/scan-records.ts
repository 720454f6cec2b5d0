import { type TableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import { type ObjectRow, rowObjectRenderer } from '../table/nested-values.js'

/** One record read from the log (Fluss's `ScanRecord`). */
export interface ScanRecord {
  /** Log offset of the record in its bucket. */
  readonly offset: number
  /** Commit time of the record's batch (ms), assigned by the leader. */
  readonly timestamp: number
  readonly changeType: ChangeType
  /** The values, in the scan's projection order (all columns when not projected). */
  readonly row: Row
}

/**
 * A record with its row as an object keyed by column name, nested ROW values as objects keyed by
 * field name (`ScanRecords.objects()`).
 */
export interface ObjectScanRecord {
  readonly bucket: number
  /** The partition id, for a partitioned table. */
  readonly partitionId?: number
  readonly offset: number
  readonly timestamp: number
  readonly changeType: ChangeType
  readonly row: ObjectRow
}

interface BucketRecords {
  readonly bucket: TableBucket
  readonly records: readonly ScanRecord[]
}

/** The records of one `poll()`, grouped by bucket, in log order within each bucket. */
export class ScanRecords implements Iterable<ScanRecord> {
  static readonly EMPTY = new ScanRecords(new Map())
  readonly #byBucket: ReadonlyMap<string, BucketRecords>
  readonly #rowType: RowType | undefined
  readonly count: number

  /** `rowType`: the rows' columns, in row order (for `objects()`). */
  constructor(byBucket: ReadonlyMap<string, BucketRecords>, rowType?: RowType) {
    this.#byBucket = byBucket
    this.#rowType = rowType
    let count = 0
    for (const entry of byBucket.values()) count += entry.records.length
    this.count = count
  }

  isEmpty(): boolean {
    return this.count === 0
  }

  /** The buckets with records in this poll. */
  buckets(): TableBucket[] {
    return [...this.#byBucket.values()].map(e => e.bucket)
  }

  /** The records of one bucket (empty when it has none). */
  records(bucket: TableBucket): readonly ScanRecord[] {
    return this.#byBucket.get(tableBucketKey(bucket))?.records ?? []
  }

  /** The same records knowing their columns (a scanner's records know them). */
  withRowType(rowType: RowType): ScanRecords {
    return new ScanRecords(this.#byBucket, rowType)
  }

  /**
   * Every record, bucket by bucket in log order, with its row as an object keyed by column name:
   * `{ bucket, offset, timestamp, changeType, row: { id: 1, name: 'a' } }`; a ROW value, at any
   * depth, is an object keyed by field name (`point: { x: 1, label: 'a' }`), a MAP value a Map.
   */
  objects(): ObjectScanRecord[] {
    const render = rowObjectRenderer(this.#rowType ?? { type: 'ROW', nullable: false, fields: [] })
    const out: ObjectScanRecord[] = []
    for (const { bucket, records } of this.#byBucket.values()) {
      const where =
        bucket.partitionId === undefined
          ? { bucket: bucket.bucket }
          : { bucket: bucket.bucket, partitionId: bucket.partitionId }
      for (const r of records) {
        const row = render(r.row)
        out.push({ ...where, offset: r.offset, timestamp: r.timestamp, changeType: r.changeType, row })
      }
    }
    return out
  }

  *[Symbol.iterator](): Iterator<ScanRecord> {
    for (const entry of this.#byBucket.values()) yield* entry.records
  }
}
