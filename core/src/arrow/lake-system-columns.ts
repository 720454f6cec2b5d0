import { FlussError } from '../errors/index.js'
import { DataTypes, notNull, type RowType } from '../types/data-type.js'
import { setInt64Number } from './int64.js'
import type { LakeColumnBuffers } from './lake-columns.js'

/**
 * The system columns every lake row carries after the table's columns: `__bucket` int32,
 * `__offset` int64 (the row's log offset) and `__timestamp` timestamp(us, UTC) (its batch's commit
 * time), all NOT NULL.
 */

export const LAKE_BUCKET_COLUMN = '__bucket'
export const LAKE_OFFSET_COLUMN = '__offset'
export const LAKE_TIMESTAMP_COLUMN = '__timestamp'
export const PARQUET_FIELD_ID_METADATA_KEY = 'PARQUET:field_id'

/** Where a batch sits in the log: its bucket, base offset and commit timestamp (ms). */
export interface LakeBatchPosition {
  readonly bucket: number
  readonly baseOffset: number
  readonly commitTimestampMs: number
}

/** The row type of a lake stream: the user columns, then the three system columns. */
export function lakeStreamRowType(userRowType: RowType): RowType {
  const system = [
    [LAKE_BUCKET_COLUMN, notNull(DataTypes.INT())],
    [LAKE_OFFSET_COLUMN, notNull(DataTypes.BIGINT())],
    [LAKE_TIMESTAMP_COLUMN, notNull(DataTypes.TIMESTAMP_LTZ(6))],
  ] as const
  const n = userRowType.fields.length
  return {
    ...userRowType,
    fields: [...userRowType.fields, ...system.map(([name, type], i) => ({ name, type, fieldId: n + i }))],
  }
}

const EMPTY = new Uint8Array(0)

/** INVALID_REQUEST unless bucket, base offset and commit time are valid. */
export function checkPosition(p: LakeBatchPosition): void {
  const ok =
    Number.isInteger(p.bucket) &&
    p.bucket >= 0 &&
    p.bucket <= 0x7fffffff &&
    Number.isSafeInteger(p.baseOffset) &&
    p.baseOffset >= 0 &&
    Number.isSafeInteger(p.commitTimestampMs)
  if (!ok) throw new FlussError('INVALID_REQUEST', `invalid batch position ${JSON.stringify(p)}`)
}

/** `__bucket`, `__offset`, `__timestamp` of `rows` rows at `position`. */
export function systemColumns(rows: number, position: LakeBatchPosition): LakeColumnBuffers[] {
  const bucket = new Int32Array(rows).fill(position.bucket)
  const offsets = new Uint8Array(8 * rows)
  const offsetView = new DataView(offsets.buffer)
  for (let i = 0; i < rows; i++) setInt64Number(offsetView, 8 * i, position.baseOffset + i)
  const timestamps = new Uint8Array(8 * rows)
  if (rows > 0) {
    const micros = BigInt(position.commitTimestampMs) * 1000n
    new BigInt64Array(timestamps.buffer).fill(micros)
  }
  return [
    { buffers: [EMPTY, new Uint8Array(bucket.buffer)], nullCount: 0 },
    { buffers: [EMPTY, offsets], nullCount: 0 },
    { buffers: [EMPTY, timestamps], nullCount: 0 },
  ]
}
