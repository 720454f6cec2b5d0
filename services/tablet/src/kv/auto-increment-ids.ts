import { TABLE_AUTO_INCREMENT_CACHE_SIZE } from '@sluice/core/config'
import { assert, FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import { allocateIdAt, autoIncrementKey, type MetaStore } from '@sluice/core/metastore'

const INT_MAX = 2 ** 31 - 1

/**
 * Takes `count` ids from the table-wide counter and returns the last id handed out before them:
 * the range is `[start + 1, start + count]` (Fluss's `SequenceIDCounter.getAndAdd`, ids start at 1).
 */
export type IdRangeSource = (count: number) => Promise<number>

/** What a bucket's ids are drawn for: the column, its largest value, the range size. */
export interface AutoIncrementColumn {
  readonly name: string
  /** Integer.MAX_VALUE for INT; for BIGINT the largest exact integer here (2^53 - 1). */
  readonly maxValue: number
  readonly cacheSize: number
}

/**
 * The auto-increment ids of one bucket's leadership (Fluss's `BoundedSegmentSequenceGenerator`):
 * ranges of `table.auto-increment.cache-size` ids taken from the table's counter, used in order.
 * Every KvTablet opening draws new ranges, so ids stay unique across buckets, restarts and
 * failovers (what a former leader left of its range is skipped). `reserve` fetches ranges before a
 * put, so `next` never waits.
 */
export class AutoIncrementIds {
  readonly #ranges: { next: number; end: number }[] = []
  #available = 0

  constructor(
    readonly column: AutoIncrementColumn,
    private readonly source: IdRangeSource,
  ) {}

  /** Ids left in the fetched ranges. */
  get available(): number {
    return this.#available
  }

  /** Makes sure `count` ids can be taken without waiting, fetching ranges as needed. */
  async reserve(count: number): Promise<void> {
    while (this.#available < count) {
      const size = this.column.cacheSize
      const start = await this.source(size)
      this.#ranges.push({ next: start + 1, end: start + size })
      this.#available += size
    }
  }

  /** The next id; `reserve` must have made room for it. */
  next(): number {
    const range = this.#ranges[0]
    assert(range !== undefined, 'auto-increment ids taken without a reserve')
    const id = range.next++
    if (range.next > range.end) this.#ranges.shift()
    this.#available--
    if (id > this.column.maxValue) {
      throw new FlussError(
        'KV_STORAGE_EXCEPTION',
        `Reached maximum value of sequence "<${this.column.name}>" (${this.column.maxValue}).`,
      )
    }
    return id
  }
}

/** The auto-increment column of a table, or null when it has none. */
export function autoIncrementColumn(
  tableInfo: TableInfo,
): (AutoIncrementColumn & { readonly id: number }) | null {
  const { schema } = tableInfo
  const name = schema.autoIncrementColumnNames[0]
  if (name === undefined) return null
  const index = schema.columnIndex(name)
  const type = schema.rowType.fields[index].type.type
  return {
    name,
    id: schema.columnIds[index],
    maxValue: type === 'INTEGER' ? INT_MAX : Number.MAX_SAFE_INTEGER,
    cacheSize: tableInfo.tableConfig.get(TABLE_AUTO_INCREMENT_CACHE_SIZE),
  }
}

/** Ids of a table's auto-increment column drawn from its counter in the metadata store. */
export function metaStoreAutoIncrementIds(store: MetaStore, tableInfo: TableInfo): AutoIncrementIds | null {
  const column = autoIncrementColumn(tableInfo)
  if (column === null) return null
  const key = autoIncrementKey(tableInfo.tableId, column.id)
  const what = `auto-increment column ${column.name} of table ${tableInfo.tableId}`
  return new AutoIncrementIds(column, count => allocateIdAt(store, key, what, { count, maxAttempts: 100 }))
}
