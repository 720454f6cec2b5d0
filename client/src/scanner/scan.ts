import { projectRowType } from '@sluice/core/arrow'
import { TABLE_LOG_FORMAT } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { ScannerOptions } from '../client-options.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { LogFetcher } from './log-fetcher.js'
import { LogScanner } from './log-scanner.js'

/** What a scan needs from its connection. */
export interface ScanContext {
  readonly metadata: MetadataUpdater
  readonly options: ScannerOptions
  readonly requestTimeoutMs: number
  /** Registers the scanner so that closing the connection closes it. */
  readonly track: (scanner: LogScanner) => void
  readonly untrack: (scanner: LogScanner) => void
}

/** A column projection: the requested order, and what is pushed down to the server. */
export interface Projection {
  /** Column indexes in the order the caller asked for. */
  readonly fields: readonly number[]
  /** The same indexes ascending (Fluss servers require that order). */
  readonly pushdown: readonly number[]
  /** Output position → position in the pushed-down row; undefined when the orders agree. */
  readonly reorder: readonly number[] | undefined
}

/** Resolves column names or indexes into a projection; unknown or repeated columns are INVALID_COLUMN_PROJECTION. */
export function projection(info: TableInfo, columns: readonly (number | string)[]): Projection {
  const names = info.rowType.fields.map(f => f.name)
  if (columns.length === 0)
    throw new FlussError('INVALID_COLUMN_PROJECTION', 'A projection needs at least one column')
  const fields = columns.map(c => {
    const index = typeof c === 'number' ? c : names.indexOf(c)
    if (!Number.isInteger(index) || index < 0 || index >= names.length) {
      throw new FlussError(
        'INVALID_COLUMN_PROJECTION',
        `Column ${JSON.stringify(c)} is not in the table (columns: ${names.join(', ')})`,
      )
    }
    return index
  })
  if (new Set(fields).size !== fields.length) {
    throw new FlussError(
      'INVALID_COLUMN_PROJECTION',
      `The projection [${columns.join(', ')}] repeats a column`,
    )
  }
  const pushdown = [...fields].sort((a, b) => a - b)
  const inOrder = fields.every((f, i) => f === pushdown[i])
  return { fields, pushdown, reorder: inOrder ? undefined : fields.map(f => pushdown.indexOf(f)) }
}

/** Builds scanners over a table (Fluss's `Scan`): `table.newScan().project(['a', 'c']).createLogScanner()`. */
export class Scan {
  readonly #info: TableInfo
  readonly #ctx: ScanContext
  readonly #projection: Projection | undefined

  constructor(info: TableInfo, ctx: ScanContext, projected?: Projection) {
    this.#info = info
    this.#ctx = ctx
    this.#projection = projected
  }

  /** Reads only these columns (by index or name), in this order; pushed down to the servers. */
  project(columns: readonly (number | string)[]): Scan {
    return new Scan(this.#info, this.#ctx, projection(this.#info, columns))
  }

  createLogScanner(): LogScanner {
    const info = this.#info
    const format = info.tableConfig.get(TABLE_LOG_FORMAT)
    if (format !== 'ARROW') {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `Table ${info.tablePath.databaseName}.${info.tablePath.tableName} has log format ${format}; this client reads ARROW logs only`,
      )
    }
    const p = this.#projection
    const readRowType = p === undefined ? info.rowType : projectRowType(info.rowType, p.pushdown)
    const { metadata, options, requestTimeoutMs } = this.#ctx
    const fetcher = new LogFetcher({
      metadata,
      info,
      options,
      requestTimeoutMs,
      projectedFields: p?.pushdown,
      decoder: { readRowType, projected: p !== undefined, reorder: p?.reorder, checkCrc: options.checkCrc },
    })
    const scanner = new LogScanner(info, fetcher, options.maxPollRecords, this.#ctx.untrack)
    this.#ctx.track(scanner)
    return scanner
  }
}
