import type { DeleteBehavior } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { Row, Timestamp } from '@sluice/core/row'
import type { KvValue, SchemaContext } from '../kv-schemas.js'
import type { RowMerger } from './row-merger.js'

type VersionCompare = (oldRow: Row, newRow: Row) => number

const INT_MIN = -2147483648
const LONG_MIN = -(2n ** 63n)
/** Java's Long.MIN_VALUE (exactly representable as a double). */
const MIN_MILLIS = -(2 ** 63)

/**
 * The versioned merge engine (Fluss's `VersionedRowMerger`): the new row wins when its version is
 * greater than or equal to the stored one. A NULL version counts as the type's minimum, so it never
 * beats a non-NULL version but does replace a NULL one. Version columns: INT, BIGINT, TIMESTAMP,
 * TIMESTAMP_LTZ. Deletes default to IGNORE; ALLOW is refused; partial updates are refused.
 */
export class VersionedRowMerger implements RowMerger {
  readonly replacesWholeRow = false
  readonly deleteBehavior: DeleteBehavior
  #schemaId = -1
  #compare: VersionCompare | null = null

  /**
   * `versionColumn` names the column in the schema the table's properties were read with;
   * `versionColumnId` is its id there, by which it is found in every later schema (a rename keeps it).
   */
  constructor(
    readonly versionColumn: string,
    deleteBehavior: DeleteBehavior | undefined,
    readonly versionColumnId?: number,
  ) {
    if (deleteBehavior === 'ALLOW') {
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        'DELETE is not supported for the versioned merge engine.',
      )
    }
    this.deleteBehavior = deleteBehavior ?? 'IGNORE'
  }

  merge(oldValue: KvValue | null, newValue: KvValue): KvValue {
    if (oldValue === null) return newValue
    const compare = this.#compare
    if (compare === null) throw new Error('the versioned merger is used before configureTargetColumns')
    return compare(oldValue.row, newValue.row) <= 0 ? newValue : oldValue
  }

  delete(): KvValue | null {
    throw new FlussError('UNKNOWN_SERVER_ERROR', 'DELETE is not supported for the versioned merge engine.')
  }

  configureTargetColumns(targetColumns: readonly number[] | null, latest: SchemaContext): RowMerger {
    if (targetColumns !== null) {
      throw new FlussError(
        'UNKNOWN_SERVER_ERROR',
        'Partial update is not supported for the versioned merge engine.',
      )
    }
    if (latest.schemaId !== this.#schemaId || this.#compare === null) {
      this.#compare = versionComparator(latest, this.versionColumn, this.versionColumnId)
      this.#schemaId = latest.schemaId
    }
    return this
  }
}

function versionComparator(latest: SchemaContext, column: string, columnId?: number): VersionCompare {
  const index =
    columnId === undefined ? latest.schema.columnIndex(column) : (latest.indexByColumnId.get(columnId) ?? -1)
  if (index < 0) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `The version column '${column}' for versioned merge engine doesn't exist in schema.`,
    )
  }
  const type = latest.rowType.fields[index].type
  const at = (row: Row) => (index < row.length ? row[index] : null)
  switch (type.type) {
    case 'INTEGER':
      return (a, b) => ((at(a) as number | null) ?? INT_MIN) - ((at(b) as number | null) ?? INT_MIN)
    case 'BIGINT':
      return (a, b) => {
        const x = (at(a) as bigint | null) ?? LONG_MIN
        const y = (at(b) as bigint | null) ?? LONG_MIN
        return x < y ? -1 : x > y ? 1 : 0
      }
    case 'TIMESTAMP_WITHOUT_TIME_ZONE':
    case 'TIMESTAMP_WITH_LOCAL_TIME_ZONE':
      return (a, b) => {
        const x = at(a) as Timestamp | null
        const y = at(b) as Timestamp | null
        const mx = x?.millis ?? MIN_MILLIS
        const my = y?.millis ?? MIN_MILLIS
        if (mx !== my) return mx < my ? -1 : 1
        return (x?.nanoOfMillis ?? 0) - (y?.nanoOfMillis ?? 0)
      }
    default:
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `The version column '${column}' for versioned merge engine must be one type of [INT, BIGINT, TIMESTAMP, TIMESTAMP_LTZ], but is ${type.type}.`,
      )
  }
}
