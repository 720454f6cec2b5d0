import {
  type Configuration,
  type DeleteBehavior,
  TABLE_DELETE_BEHAVIOR,
  TABLE_MERGE_ENGINE,
  TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN,
} from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { KvSchemaSource } from '../kv-schemas.js'
import { AggregateRowMerger } from './aggregate-row-merger.js'
import { DefaultRowMerger } from './default-row-merger.js'
import { FirstRowRowMerger } from './first-row-row-merger.js'
import type { RowMerger } from './row-merger.js'
import { VersionedRowMerger } from './versioned-row-merger.js'

/**
 * The merger of a primary-key table from its configuration (Fluss's `RowMerger.create`), whose
 * column names are those of schema `tableSchemaId` (default: the latest). An unset
 * `table.delete.behavior` means the engine's default: ALLOW for the default engine, IGNORE for the
 * others.
 */
export function createRowMerger(
  tableConfig: Configuration,
  schemas: KvSchemaSource,
  tableSchemaId?: number,
): RowMerger {
  const engine = tableConfig.getOptional(TABLE_MERGE_ENGINE)
  // The option's registry default is ALLOW; only an explicit setting overrides an engine's default.
  const deleteBehavior: DeleteBehavior | undefined = tableConfig.has(TABLE_DELETE_BEHAVIOR)
    ? tableConfig.get(TABLE_DELETE_BEHAVIOR)
    : undefined
  switch (engine) {
    case undefined:
      return new DefaultRowMerger(deleteBehavior ?? 'ALLOW')
    case 'FIRST_ROW':
      return new FirstRowRowMerger(deleteBehavior)
    case 'VERSIONED': {
      const column = tableConfig.getOptional(TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN)
      if (column === undefined) {
        throw new FlussError(
          'INVALID_CONFIG_EXCEPTION',
          `'${TABLE_MERGE_ENGINE_VERSIONED_VER_COLUMN.key}' must be set for versioned merge engine.`,
        )
      }
      // The column is named in the schema the properties were read with; later found by its id.
      const configSchema = tableSchemaId === undefined ? schemas.latest() : schemas.context(tableSchemaId)
      const id = configSchema.schema.column(column)?.columnId
      return new VersionedRowMerger(column, deleteBehavior, id)
    }
    case 'AGGREGATION':
      return new AggregateRowMerger(schemas, deleteBehavior)
  }
}

/** The merger of OVERWRITE puts (agg_mode 1): the merge engine is bypassed and deletes allowed. */
export function createOverwriteRowMerger(): RowMerger {
  return new DefaultRowMerger('ALLOW')
}
