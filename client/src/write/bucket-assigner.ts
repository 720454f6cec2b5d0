import {
  type BucketingFunction,
  bucketingFunction,
  createNoKeyBucketAssigner,
  type NoKeyBucketAssigner,
  type RandomInt,
  randomInt32,
} from '@sluice/core/bucketing'
import type { TableInfo } from '@sluice/core/metadata'
import { type KeyEncoder, lakeFormatOf, type Row } from '@sluice/core/row'
import { bucketKeyEncoder } from '../table/key-encoding.js'

/** Picks the bucket of each row written to one table. */
export interface WriteBucketAssigner {
  assign(row: Row, partitionName: string | undefined): number
  /**
   * True when a row must not open a new batch in the bucket it was given (sticky assignment):
   * the writer then calls `onNewBatch` and assigns again.
   */
  readonly abortIfBatchFull: boolean
  /** The batch of `bucket` was sent or filled up; the next row opens a new batch. */
  onNewBatch(bucket: number, partitionName: string | undefined): void
}

/** Buckets of a table (or partition) with a known leader. */
export type AvailableBuckets = (partitionName: string | undefined) => readonly number[]

/**
 * Hash assignment for tables with bucket keys: the bucket-key columns encoded with the table's
 * bucket-key encoder, hashed with its bucketing function (Fluss's CompactedKeyEncoder and hash, or
 * the lake's for Iceberg lake tables; Lance tables use Fluss's). Tables whose bucket keys cannot be
 * encoded (Paimon lake tables, Iceberg keys of several columns) are INVALID_CONFIG_EXCEPTION.
 */
export class HashBucketAssigner implements WriteBucketAssigner {
  readonly abortIfBatchFull = false
  readonly #encoder: KeyEncoder
  readonly #function: BucketingFunction

  constructor(
    info: TableInfo,
    readonly numBuckets: number = info.numBuckets,
  ) {
    this.#encoder = bucketKeyEncoder(info)
    this.#function = bucketingFunction(lakeFormatOf(info.tableConfig))
  }

  assign(row: Row): number {
    return this.#function(this.#encoder.encodeKeyView(row), this.numBuckets)
  }

  onNewBatch(): void {}
}

/**
 * Assignment for tables without bucket keys: the configured no-key assigner (sticky or
 * round-robin), one per partition, over the buckets whose leader is known.
 */
export class NoKeyBucketAssignerGroup implements WriteBucketAssigner {
  readonly abortIfBatchFull: boolean
  readonly #byPartition = new Map<string, NoKeyBucketAssigner>()

  constructor(
    readonly kind: 'STICKY' | 'ROUND_ROBIN',
    readonly numBuckets: number,
    readonly available: AvailableBuckets,
    readonly random: RandomInt = randomInt32,
  ) {
    this.abortIfBatchFull = kind === 'STICKY'
  }

  assign(_row: Row, partitionName: string | undefined): number {
    return this.#assigner(partitionName).assignBucket(this.available(partitionName))
  }

  onNewBatch(bucket: number, partitionName: string | undefined): void {
    this.#assigner(partitionName).onNewBatch(this.available(partitionName), bucket)
  }

  #assigner(partitionName: string | undefined): NoKeyBucketAssigner {
    const key = partitionName ?? ''
    let assigner = this.#byPartition.get(key)
    if (assigner === undefined) {
      assigner = createNoKeyBucketAssigner(this.kind, this.numBuckets, this.random)
      this.#byPartition.set(key, assigner)
    }
    return assigner
  }
}

/** The assigner a table needs: hashing for bucket keys, the configured no-key assigner otherwise. */
export function createBucketAssigner(
  info: TableInfo,
  noKeyAssigner: 'STICKY' | 'ROUND_ROBIN',
  available: AvailableBuckets,
): WriteBucketAssigner {
  return info.hasBucketKey
    ? new HashBucketAssigner(info)
    : new NoKeyBucketAssignerGroup(noKeyAssigner, info.numBuckets, available)
}
