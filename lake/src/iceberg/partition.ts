import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { Value } from '@sluice/core/row'
import { BUCKET_COLUMN_NAME, BUCKET_FIELD_ID, type LakeSchema } from './schema.js'
import type { PartitionField, PartitionSpec, PartitionValue } from './types.js'

/**
 * The partition spec of a lake table: identity on each Fluss partition column (in order), then
 * identity on `__bucket`.
 *
 * Why identity(`__bucket`) and not Iceberg's `bucket[N](key)`: an engine prunes files with the
 * bucket transform, so `bucket[N]` is only correct if every row's Fluss bucket equals Iceberg's
 * murmur3 bucket of its key. That holds only for tables bucketed with the Iceberg bucketing
 * function from their first row, with a single bucket key whose key encoding matches Iceberg's
 * hash serialization for its type; a table that enabled the lake later, used another lake format
 * binding or a multi-column key would silently lose rows in pruned scans. identity(`__bucket`)
 * is correct by construction, still prunes on `__bucket = k`, and scopes a primary-key table's
 * equality deletes to one bucket (a key always maps to one bucket, since the bucket key is part
 * of the primary key).
 */

export const PARTITION_FIELD_ID_BASE = 1000
/** Java's and Athena's `last-partition-id` of an unpartitioned spec. */
export const UNPARTITIONED_LAST_PARTITION_ID = PARTITION_FIELD_ID_BASE - 1

export interface LakePartitionField {
  readonly field: PartitionField
  /** Result type of the identity transform: the source column's Iceberg type. */
  readonly icebergType: string
  /** Position of the source column in the Fluss row; -1 for `__bucket`. */
  readonly rowIndex: number
}

export interface LakePartitioning {
  readonly spec: PartitionSpec
  readonly fields: readonly LakePartitionField[]
}

const PARTITION_TYPES: ReadonlySet<string> = new Set(['string', 'int', 'long', 'date', 'boolean'])

export function lakePartitioningOf(tableInfo: TableInfo, schema: LakeSchema, specId = 0): LakePartitioning {
  const fields: LakePartitionField[] = tableInfo.partitionKeys.map((key, i) => {
    const column = schema.columns.find(c => c.name === key && c.rowIndex >= 0)
    if (column === undefined)
      throw new FlussError('INVALID_TABLE_EXCEPTION', `Partition key '${key}' is no column.`)
    const icebergType = column.icebergType
    if (typeof icebergType !== 'string' || !PARTITION_TYPES.has(icebergType)) {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `Partition key '${key}' has lake type ${typeof icebergType === 'string' ? icebergType : icebergType.type}; the lake supports string, int, long, date and boolean partition keys.`,
      )
    }
    return {
      field: {
        name: key,
        transform: 'identity',
        'source-id': column.fieldId,
        'field-id': PARTITION_FIELD_ID_BASE + i,
      },
      icebergType,
      rowIndex: column.rowIndex,
    }
  })
  fields.push({
    field: {
      name: BUCKET_COLUMN_NAME,
      transform: 'identity',
      'source-id': BUCKET_FIELD_ID,
      'field-id': PARTITION_FIELD_ID_BASE + fields.length,
    },
    icebergType: 'int',
    rowIndex: -1,
  })
  return { spec: { 'spec-id': specId, fields: fields.map(f => f.field) }, fields }
}

/** The Iceberg value of a Fluss value of a partition column. */
function partitionValueOf(value: Value, icebergType: string): PartitionValue {
  if (value === null) return null
  if (icebergType === 'long') return BigInt(value as bigint | number)
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  throw new FlussError('INVALID_REQUEST', `partition value ${String(value)} does not fit ${icebergType}`)
}

/** The partition tuple of a row written to bucket `bucket`. */
export function partitionTupleOf(
  p: LakePartitioning,
  row: readonly Value[],
  bucket: number,
): PartitionValue[] {
  return p.fields.map(f => (f.rowIndex < 0 ? bucket : partitionValueOf(row[f.rowIndex], f.icebergType)))
}

function pathValue(v: PartitionValue, icebergType: string): string {
  if (v === null) return 'null'
  if (icebergType === 'date') return new Date(Number(v) * 86_400_000).toISOString().slice(0, 10)
  return encodeURIComponent(String(v))
}

/** `p=2024/__bucket=3`: the Hive-style directory of a partition under `data/`. */
export function partitionPath(p: LakePartitioning, values: readonly PartitionValue[]): string {
  return p.fields
    .map((f, i) => `${encodeURIComponent(f.field.name)}=${pathValue(values[i], f.icebergType)}`)
    .join('/')
}

/**
 * An Avro-compatible name for a partition field, as Iceberg's Java writer makes it: a leading
 * digit gets a '_' prefix, other invalid characters become `_x` plus their hex code.
 */
export function avroFieldName(name: string): string {
  let out = ''
  for (let i = 0; i < name.length; i++) {
    const c = name[i]
    const ok = /[A-Za-z_]/.test(c) || (i > 0 && /[0-9]/.test(c))
    if (ok) out += c
    else if (i === 0 && /[0-9]/.test(c)) out += `_${c}`
    else out += `_x${c.codePointAt(0)?.toString(16).toUpperCase()}`
  }
  return out === '' ? '_' : out
}
