import { type TableBucket, tableBucketKey } from '@sluice/core/metadata'
import type { ChangeType } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'

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

interface BucketRecords {
  readonly bucket: TableBucket
  readonly records: readonly ScanRecord[]
}

/** The records of one `poll()`, grouped by bucket, in log order within each bucket. */
export class ScanRecords implements Iterable<ScanRecord> {
  static readonly EMPTY = new ScanRecords(new Map())
  readonly #byBucket: ReadonlyMap<string, BucketRecords>
  readonly count: number

  constructor(byBucket: ReadonlyMap<string, BucketRecords>) {
    this.#byBucket = byBucket
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

  *[Symbol.iterator](): Iterator<ScanRecord> {
    for (const entry of this.#byBucket.values()) yield* entry.records
  }
}
