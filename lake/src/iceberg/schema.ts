import type { FieldMetadataTree } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import {
  type DataType,
  DataTypes,
  notNull,
  type RowType,
  typeToString,
  withNullability,
} from '@sluice/core/types'
import { icebergColumnType, sameIcebergField } from './nested-schema.js'
import type { IcebergField, IcebergSchema, IcebergType } from './types.js'

/**
 * The lake schema of a Fluss table: its columns as Iceberg fields, then the system columns
 * `__bucket int`, `__offset long` and `__timestamp timestamptz` (all required), as Fluss does.
 *
 * Field ids are stable and derived, never positional:
 * - a Fluss column with column id `c` gets Iceberg field id `c + 1` (Fluss ids start at 0, Iceberg
 *   ids conventionally at 1). Fluss never reuses a column id, so a column keeps its Iceberg id for
 *   the life of the table, whatever columns are added around it;
 * - the system columns take fixed ids in a reserved band far above any Fluss column id:
 *   `__bucket` = 1000000, `__offset` = 1000001, `__timestamp` = 1000002.
 *   Columns other writers add get ids above `last-column-id`, beyond the band.
 *
 * Type mapping (Iceberg type / Arrow and Parquet representation):
 * BOOLEAN → boolean; TINYINT, SMALLINT, INT → int (INT32); BIGINT → long; FLOAT → float;
 * DOUBLE → double; CHAR, STRING → string (UTF8); BYTES → binary; BINARY(n) → fixed[n]
 * (FIXED_LEN_BYTE_ARRAY); DECIMAL(p, s) → decimal(p, s) (INT32/INT64/FIXED by precision);
 * DATE → date; TIME(p) → time (INT64 micros); TIMESTAMP(p) → timestamp (INT64 micros, not UTC);
 * TIMESTAMP_LTZ(p) → timestamptz (INT64 micros, adjusted to UTC). Precisions above 6 are truncated
 * to microseconds, the finest unit of format v2. ARRAY → list, MAP → map, ROW → struct, with field
 * ids on every nested field (see `nested-schema.ts`) and the same conversions inside.
 */

export const BUCKET_COLUMN_NAME = '__bucket'
export const OFFSET_COLUMN_NAME = '__offset'
export const TIMESTAMP_COLUMN_NAME = '__timestamp'
export const SYSTEM_FIELD_ID_BASE = 1_000_000
export const BUCKET_FIELD_ID = SYSTEM_FIELD_ID_BASE
export const OFFSET_FIELD_ID = SYSTEM_FIELD_ID_BASE + 1
export const TIMESTAMP_FIELD_ID = SYSTEM_FIELD_ID_BASE + 2
const SYSTEM_COLUMN_NAMES: ReadonlySet<string> = new Set([
  BUCKET_COLUMN_NAME,
  OFFSET_COLUMN_NAME,
  TIMESTAMP_COLUMN_NAME,
])

export interface LakeColumn {
  readonly name: string
  readonly fieldId: number
  readonly icebergType: IcebergType
  readonly required: boolean
  /** The type written to Arrow and Parquet (widened integers, microsecond time units). */
  readonly lakeType: DataType
  /** `PARQUET:field_id` of the nested children of a list, map or struct column. */
  readonly nestedFieldIds?: FieldMetadataTree
  /** Position in the Fluss row, or -1 for a system column. */
  readonly rowIndex: number
}

export interface LakeSchema {
  readonly columns: readonly LakeColumn[]
  readonly iceberg: IcebergSchema
  /** Row type of the Arrow data written to Parquet: the table's columns, then the system columns. */
  readonly rowType: RowType
  /** Iceberg field ids of the primary key (empty for log tables). */
  readonly primaryKeyFieldIds: readonly number[]
  /** Positions of the primary key in the Fluss row. */
  readonly primaryKeyIndexes: readonly number[]
  readonly lastColumnId: number
}

function invalidTable(message: string): FlussError {
  return new FlussError('INVALID_TABLE_EXCEPTION', message)
}

/**
 * The Iceberg type string and the Arrow-side type of a primitive Fluss type (nested types need
 * their field ids: `icebergColumnType`).
 */
export function icebergTypeOf(t: DataType): { icebergType: string; lakeType: DataType } {
  const keep = (icebergType: string) => ({ icebergType, lakeType: t })
  const as = (icebergType: string, lake: DataType) => ({
    icebergType,
    lakeType: withNullability(lake, t.nullable),
  })
  switch (t.type) {
    case 'BOOLEAN':
      return keep('boolean')
    case 'TINYINT':
    case 'SMALLINT':
      return as('int', DataTypes.INT())
    case 'INTEGER':
      return keep('int')
    case 'BIGINT':
      return keep('long')
    case 'FLOAT':
      return keep('float')
    case 'DOUBLE':
      return keep('double')
    case 'CHAR':
      return as('string', DataTypes.STRING())
    case 'STRING':
      return keep('string')
    case 'BYTES':
      return keep('binary')
    case 'BINARY':
      return keep(`fixed[${t.length}]`)
    case 'DECIMAL':
      return keep(`decimal(${t.precision}, ${t.scale})`)
    case 'DATE':
      return keep('date')
    case 'TIME_WITHOUT_TIME_ZONE':
      return as('time', DataTypes.TIME(6))
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
      return as('timestamp', DataTypes.TIMESTAMP(6))
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return as('timestamptz', DataTypes.TIMESTAMP_LTZ(6))
    default:
      throw invalidTable(`type ${typeToString(t)} is not an Iceberg primitive type`)
  }
}

function systemColumns(): LakeColumn[] {
  return [
    {
      name: BUCKET_COLUMN_NAME,
      fieldId: BUCKET_FIELD_ID,
      icebergType: 'int',
      lakeType: notNull(DataTypes.INT()),
    },
    {
      name: OFFSET_COLUMN_NAME,
      fieldId: OFFSET_FIELD_ID,
      icebergType: 'long',
      lakeType: notNull(DataTypes.BIGINT()),
    },
    {
      name: TIMESTAMP_COLUMN_NAME,
      fieldId: TIMESTAMP_FIELD_ID,
      icebergType: 'timestamptz',
      lakeType: notNull(DataTypes.TIMESTAMP_LTZ(6)),
    },
  ].map(c => ({ ...c, required: true, rowIndex: -1 }))
}

/** The lake schema of a Fluss table; INVALID_TABLE_EXCEPTION when the table cannot be tiered. */
export function lakeSchemaOf(tableInfo: TableInfo, schemaId = 0): LakeSchema {
  const nestedFieldIds: number[] = []
  const userColumns = tableInfo.schema.columns.map((c, rowIndex): LakeColumn => {
    if (SYSTEM_COLUMN_NAMES.has(c.name)) {
      throw invalidTable(`Column '${c.name}' conflicts with a reserved system column name of the lake table.`)
    }
    if (!Number.isSafeInteger(c.columnId) || c.columnId < 0 || c.columnId + 1 >= SYSTEM_FIELD_ID_BASE) {
      throw invalidTable(
        `Column '${c.name}' has column id ${c.columnId}, outside 0..${SYSTEM_FIELD_ID_BASE - 2}`,
      )
    }
    const { icebergType, lakeType, children, nestedIds } = icebergColumnType(c.type, c.columnId, c.name)
    nestedFieldIds.push(...nestedIds)
    return {
      name: c.name,
      fieldId: c.columnId + 1,
      icebergType,
      required: !c.type.nullable,
      lakeType,
      rowIndex,
      ...(children === undefined ? {} : { nestedFieldIds: { children } }),
    }
  })
  const columns = [...userColumns, ...systemColumns()]
  const primaryKeyIndexes = tableInfo.schema.primaryKeyIndexes
  const primaryKeyFieldIds = primaryKeyIndexes.map(i => userColumns[i].fieldId)
  const fields = columns.map(
    (c): IcebergField => ({
      id: c.fieldId,
      name: c.name,
      required: c.required,
      type: c.icebergType,
      ...docOf(tableInfo, c),
    }),
  )
  const iceberg: IcebergSchema = {
    type: 'struct',
    'schema-id': schemaId,
    ...(primaryKeyFieldIds.length > 0 ? { 'identifier-field-ids': primaryKeyFieldIds } : {}),
    fields,
  }
  const rowType: RowType = {
    type: 'ROW',
    nullable: false,
    fields: columns.map(c => ({ name: c.name, type: c.lakeType, fieldId: c.fieldId })),
  }
  const lastColumnId = Math.max(...columns.map(c => c.fieldId), ...nestedFieldIds)
  return { columns, iceberg, rowType, primaryKeyFieldIds, primaryKeyIndexes, lastColumnId }
}

function docOf(tableInfo: TableInfo, c: LakeColumn): { doc?: string } {
  if (c.rowIndex < 0) return {}
  const comment = tableInfo.schema.columns[c.rowIndex].comment
  return comment === undefined ? {} : { doc: comment }
}

/** Whether two schemas have the same fields (ids, names, types, requiredness) and identifier ids. */
export function sameFields(a: IcebergSchema, b: IcebergSchema): boolean {
  const ids = (s: IcebergSchema) => (s['identifier-field-ids'] ?? []).join(',')
  return (
    ids(a) === ids(b) &&
    a.fields.length === b.fields.length &&
    a.fields.every((f, i) => sameIcebergField(f, b.fields[i]))
  )
}
