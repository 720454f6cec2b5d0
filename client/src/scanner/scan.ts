import { TABLE_LOG_FORMAT } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { type TableBucket, type TableInfo, tableBucket } from '@sluice/core/metadata'
import { Admin } from '../admin/admin.js'
import type { ScannerOptions } from '../client-options.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { checkCompactedKv, projectFields, tableName } from '../table/key-encoding.js'
import type { SchemaCache, ValueDecoder } from '../table/value-decoder.js'
import { LogBatchDecoding } from './batch-decoding.js'
import { LimitBatchScanner } from './limit-batch-scanner.js'
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
  /** Decodes KV values of the table (limit scans of primary-key tables). */
  readonly decoder: () => ValueDecoder
  /** The table's schema versions (batches of older versions are read by column id). */
  readonly schemas: SchemaCache
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

/**
 * Builds scanners over a table (Fluss's `Scan`): `table.newScan().project(['a', 'c']).createLogScanner()`
 * reads the log; `table.newScan().limit(10).createBatchScanner(0)` reads a few rows of one bucket.
 */
export class Scan {
  readonly #info: TableInfo
  readonly #ctx: ScanContext
  readonly #projection: Projection | undefined
  readonly #limit: number | undefined

  constructor(info: TableInfo, ctx: ScanContext, projected?: Projection, limit?: number) {
    this.#info = info
    this.#ctx = ctx
    this.#projection = projected
    this.#limit = limit
  }

  /** Reads only these columns (by index or name), in this order; pushed down to the servers. */
  project(columns: readonly (number | string)[]): Scan {
    return new Scan(this.#info, this.#ctx, projection(this.#info, columns), this.#limit)
  }

  /**
   * Reads at most `rowNumber` rows with a batch scanner: the first rows in key order of a
   * primary-key table, the latest records of a log table.
   */
  limit(rowNumber: number): Scan {
    if (!Number.isSafeInteger(rowNumber) || rowNumber < 1) {
      throw new FlussError('INVALID_REQUEST', `Invalid limit ${rowNumber}: expected a positive integer`)
    }
    return new Scan(this.#info, this.#ctx, this.#projection, rowNumber)
  }

  /** A limit scan of one bucket (`limit` is required); for a partitioned table pass the partition id first. */
  createBatchScanner(bucket: number): LimitBatchScanner
  createBatchScanner(partitionId: number, bucket: number): LimitBatchScanner
  createBatchScanner(a: number, b?: number): LimitBatchScanner {
    const info = this.#info
    const limit = this.#limit
    const target = b === undefined ? batchScanBucket(info, undefined, a) : batchScanBucket(info, a, b)
    if (limit === undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `Currently, BatchScanner is only available when limit is set. Table: ${tableName(info)}, bucket: ${target.bucket}`,
      )
    }
    if (info.hasPrimaryKey) checkCompactedKv(info)
    else checkArrowLog(info)
    const { metadata, options, requestTimeoutMs } = this.#ctx
    const context = {
      metadata,
      info,
      requestTimeoutMs,
      checkCrc: options.checkCrc,
      decoder: this.#ctx.decoder(),
      decoding: new LogBatchDecoding(info.schemaId, info.schema, undefined, this.#ctx.schemas),
      fields: this.#projection?.fields,
    }
    return new LimitBatchScanner(context, target, limit)
  }

  createLogScanner(): LogScanner {
    const info = this.#info
    if (this.#limit !== undefined) {
      throw new FlussError(
        'INVALID_REQUEST',
        `LogScanner doesn't support limit pushdown. Table: ${tableName(info)}, requested limit: ${this.#limit}`,
      )
    }
    checkArrowLog(info)
    const p = this.#projection
    const decoding = new LogBatchDecoding(info.schemaId, info.schema, p?.pushdown, this.#ctx.schemas)
    const { metadata, options, requestTimeoutMs } = this.#ctx
    const fetcher = new LogFetcher({
      metadata,
      info,
      options,
      requestTimeoutMs,
      projectedFields: p?.pushdown,
      decoder: { decoding, projected: p !== undefined, reorder: p?.reorder, checkCrc: options.checkCrc },
    })
    const partitions = info.isPartitioned
      ? {
          list: () => new Admin(metadata, requestTimeoutMs).listPartitionInfos(info.tablePath),
          discoveryIntervalMs: options.partitionDiscoveryIntervalMs,
        }
      : undefined
    const rowsType = p === undefined ? info.rowType : projectFields(info.rowType, p.fields)
    const scanner = new LogScanner(
      info,
      fetcher,
      options.maxPollRecords,
      this.#ctx.untrack,
      partitions,
      rowsType,
    )
    this.#ctx.track(scanner)
    return scanner
  }
}

function checkArrowLog(info: TableInfo): void {
  const format = info.tableConfig.get(TABLE_LOG_FORMAT)
  if (format !== 'ARROW') {
    throw new FlussError(
      'INVALID_TABLE_EXCEPTION',
      `Table ${tableName(info)} has log format ${format}; this client reads ARROW logs only`,
    )
  }
}

function batchScanBucket(info: TableInfo, partitionId: number | undefined, bucket: number): TableBucket {
  if (info.isPartitioned && partitionId === undefined) {
    throw new FlussError('INVALID_REQUEST', `Table ${tableName(info)} is partitioned: pass a partition id`)
  }
  if (!info.isPartitioned && partitionId !== undefined) {
    throw new FlussError('TABLE_NOT_PARTITIONED_EXCEPTION', `Table ${tableName(info)} is not partitioned`)
  }
  if (!Number.isInteger(bucket) || bucket < 0 || bucket >= info.numBuckets) {
    throw new FlussError(
      'INVALID_REQUEST',
      `Bucket ${bucket} is outside 0..${info.numBuckets - 1} of ${tableName(info)}`,
    )
  }
  return tableBucket(info.tableId, bucket, partitionId)
}
