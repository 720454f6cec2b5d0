import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import { checkCompactedKv, keyBucketing, tableName } from '../table/key-encoding.js'
import { Lookuper, type LookuperContext } from './lookuper.js'

const list = (names: readonly string[]) => `[${names.join(', ')}]`

function invalid(message: string): FlussError {
  return new FlussError('INVALID_REQUEST', message)
}

/**
 * Checks a prefix lookup as Fluss does (`TableLookup`, `PrefixKeyLookuper`): the lookup columns
 * are not the whole primary key, the bucket key is a prefix of the physical primary key, the lookup
 * columns hold every partition column and, apart from those, exactly the bucket key columns in
 * order, and the bucket key is shorter than the physical primary key.
 */
export function checkPrefixLookup(info: TableInfo, columns: readonly string[]): void {
  const table = tableName(info)
  const names = info.rowType.fields.map(f => f.name)
  const unknown = columns.filter(c => !names.includes(c))
  if (unknown.length > 0)
    throw invalid(`Lookup columns ${list(unknown)} are not in table '${table}' (columns: ${list(names)}).`)
  const { primaryKeys, physicalPrimaryKeys, bucketKeys, partitionKeys } = info
  if (columns.length === primaryKeys.length && primaryKeys.every(k => columns.includes(k))) {
    throw invalid(
      `Can not perform prefix lookup on table '${table}', because the lookup columns ${list(columns)} equals the physical primary keys ${list(primaryKeys)}. Please use primary key lookup (Lookuper without lookupBy) instead.`,
    )
  }
  if (!bucketKeys.every((k, i) => physicalPrimaryKeys[i] === k)) {
    throw invalid(
      `Can not perform prefix lookup on table '${table}', because the bucket keys ${list(bucketKeys)} is not a prefix subset of the physical primary keys ${list(physicalPrimaryKeys)} (excluded partition fields if present).`,
    )
  }
  if (info.isPartitioned && !partitionKeys.every(k => columns.includes(k))) {
    throw invalid(
      `Can not perform prefix lookup on table '${table}', because the lookup columns ${list(columns)} must contain all partition fields ${list(partitionKeys)}.`,
    )
  }
  const physical = columns.filter(c => !partitionKeys.includes(c))
  if (physical.length !== bucketKeys.length || !physical.every((c, i) => c === bucketKeys[i])) {
    throw invalid(
      `Can not perform prefix lookup on table '${table}', because the lookup columns ${list(columns)} must contain all bucket keys ${list(bucketKeys)} in order.`,
    )
  }
  if (bucketKeys.length === physicalPrimaryKeys.length) {
    throw invalid(
      `Can not perform prefix lookup on table '${table}', because the lookup columns ${list(columns)} equals the physical primary keys ${list(physicalPrimaryKeys)}. Please use primary key lookup (Lookuper without lookupBy) instead.`,
    )
  }
}

/**
 * Builds lookupers for a primary-key table (Fluss's `Lookup`): `table.newLookup().createLookuper()`
 * looks up by primary key; `table.newLookup().lookupBy(['a', 'dt']).createLookuper()` looks up
 * every row whose primary key starts with a bucket key (a prefix lookup).
 */
export class Lookup {
  readonly #ctx: LookuperContext
  readonly #columns: readonly string[] | undefined

  constructor(ctx: LookuperContext, columns?: readonly string[]) {
    this.#ctx = ctx
    this.#columns = columns
  }

  /** Looks up by these columns (the bucket key, plus the partition columns of a partitioned table). */
  lookupBy(columns: readonly string[]): Lookup {
    return new Lookup(this.#ctx, [...columns])
  }

  /** Validates the lookup (INVALID_REQUEST, or NON_PRIMARY_KEY_TABLE_EXCEPTION for log tables). */
  createLookuper(): Lookuper {
    const info = this.#ctx.info
    const columns = this.#columns
    if (!info.hasPrimaryKey) {
      const what = columns === undefined ? 'lookup' : 'prefix lookup'
      throw new FlussError(
        'NON_PRIMARY_KEY_TABLE_EXCEPTION',
        `Log table ${tableName(info)} doesn't support ${what}`,
      )
    }
    checkCompactedKv(info)
    keyBucketing(info)
    if (columns === undefined) return new Lookuper(this.#ctx, 'LOOKUP', info.primaryKeys)
    checkPrefixLookup(info, columns)
    return new Lookuper(this.#ctx, 'PREFIX_LOOKUP', columns)
  }
}
