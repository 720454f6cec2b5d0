import { TABLE_LOG_FORMAT } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { tablePathToString } from '@sluice/core/metadata'
import type { RowType } from '@sluice/core/types'
import type { TableSchemas } from '../kv/table-schemas.js'
import { checkProjectedFields } from './log-projection.js'
import type { Replica } from './replica.js'

/** A projected fetch's columns: positions of one schema version of the table. */
export interface ResolvedProjection {
  readonly schemaId: number
  readonly rowType: RowType
  readonly fields: readonly number[]
}

/** Newer schema ids looked for when a projection names a position beyond the latest known schema. */
const NEWER_SCHEMAS_MAX = 8

/**
 * The schema a projected fetch's column positions are positions of: the one the reader names
 * (`projection_schema_id`, sent by this SDK), or else the table's latest schema, which official
 * clients agree with as long as columns were only added (Fluss's rule). A position beyond the latest
 * schema known here first makes newer schema ids known (a reader that refreshed before this
 * server). Then Fluss's checks: ARROW tables only; positions ascending, unique, in range.
 */
export async function resolveProjection(
  replica: Replica,
  fields: readonly number[],
  schemaId: number | null,
): Promise<ResolvedProjection> {
  const info = replica.tableInfo
  const format = info.tableConfig.get(TABLE_LOG_FORMAT)
  if (format !== 'ARROW') {
    throw new FlussError(
      'INVALID_COLUMN_PROJECTION',
      `Column projection is only supported for ARROW format, but the table ${tablePathToString(info.tablePath)} is ${format} format.`,
    )
  }
  const schemas = replica.schemas
  if (schemaId !== null) {
    const rowType = await schemas.rowType(schemaId)
    checkProjectedFields(rowType, fields)
    return { schemaId, rowType, fields }
  }
  const latest = await latestCovering(schemas, Math.max(-1, ...fields))
  const rowType = await schemas.rowType(latest)
  checkProjectedFields(rowType, fields)
  return { schemaId: latest, rowType, fields }
}

async function latestCovering(schemas: TableSchemas, position: number): Promise<number> {
  for (let i = 0; i < NEWER_SCHEMAS_MAX; i++) {
    const latest = schemas.latestId
    const rowType = await schemas.rowType(latest)
    if (position < rowType.fields.length) return latest
    await schemas.ensure(latest + 1)
    if (schemas.latestId === latest) return latest
  }
  return schemas.latestId
}
