import type { Row } from '@sluice/core/row'
import type { LakeTableOptions } from '../iceberg/options.js'
import type { LakePartitioning } from '../iceberg/partition.js'
import type { LakeSchema } from '../iceberg/schema.js'
import type { LakeFileIO } from '../io/file-io.js'

/** What writing files of one lake table needs: where, in which schema and partitioning, how big. */
export interface WriteContext {
  readonly io: LakeFileIO
  /** The table location (`metadata.location`). */
  readonly location: string
  readonly schema: LakeSchema
  readonly partitioning: LakePartitioning
  readonly options: LakeTableOptions
  readonly clock: () => number
}

/** One row to tier: the Fluss row (values in column order) and its log position. */
export interface LakeRecord {
  readonly row: Row
  /** The record's log offset (`__offset`). */
  readonly offset: number | bigint
  /** The record's timestamp in epoch milliseconds (`__timestamp`). */
  readonly timestampMs: number
}
