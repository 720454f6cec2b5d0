import type { ArrowCompressionInfo } from '@sluice/core/arrow'
import {
  TABLE_LOG_ARROW_COMPRESSION_TYPE,
  TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL,
  TABLE_LOG_FORMAT,
} from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { Admin } from '../admin/admin.js'
import type { ClientOptions } from '../client-options.js'
import { Lookup } from '../lookup/lookup.js'
import type { LookupClient } from '../lookup/lookup-client.js'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import type { LogScanner } from '../scanner/log-scanner.js'
import { Scan } from '../scanner/scan.js'
import { AppendWriter, type AppendWriterOptions } from '../write/append-writer.js'
import { createBucketAssigner } from '../write/bucket-assigner.js'
import { ClusterWriterNetwork } from '../write/cluster-writer-network.js'
import type { WriterMemory } from '../write/writer-memory.js'
import type { ClosableWriter } from '../write/writer-pipeline.js'
import { tableName } from './key-encoding.js'
import { Upsert } from './upsert.js'
import { SchemaCache, ValueDecoder } from './value-decoder.js'

/** What tables, writers and scanners share with their connection. */
export interface TableContext {
  readonly options: ClientOptions
  readonly metadata: MetadataUpdater
  readonly admin: Admin
  readonly writerMemory: WriterMemory
  /** Registers a writer so that closing the connection flushes and closes it. */
  readonly trackWriter: (writer: ClosableWriter) => void
  readonly untrackWriter: (writer: ClosableWriter) => void
  /** Registers a scanner so that closing the connection closes it. */
  readonly trackScanner: (scanner: LogScanner) => void
  readonly untrackScanner: (scanner: LogScanner) => void
  /** The connection's lookup client (created on first use). */
  readonly lookupClient: () => LookupClient
}

/** The Arrow body compression a table asks writers to use. */
export function tableCompression(info: TableInfo): ArrowCompressionInfo {
  const type = info.tableConfig.get(TABLE_LOG_ARROW_COMPRESSION_TYPE)
  return type === 'ZSTD'
    ? { type, level: info.tableConfig.get(TABLE_LOG_ARROW_COMPRESSION_ZSTD_LEVEL) }
    : { type }
}

/**
 * A handle on one table (Fluss's `Table`): its info, and builders for writers (`newAppend()` for log
 * tables, `newUpsert()` for primary-key tables), lookups (`newLookup()`) and scanners (`newScan()`).
 */
export class Table {
  readonly #ctx: TableContext
  readonly #info: TableInfo
  readonly #schemas: SchemaCache

  constructor(ctx: TableContext, info: TableInfo) {
    this.#ctx = ctx
    this.#info = info
    this.#schemas = new SchemaCache(info, ctx.admin)
  }

  getTableInfo(): TableInfo {
    return this.#info
  }

  /** Appends to a log table. */
  newAppend(): Append {
    return new Append(this.#ctx, this.#info)
  }

  /** Upserts to and deletes from a primary-key table; NON_PRIMARY_KEY_TABLE_EXCEPTION for log tables. */
  newUpsert(): Upsert {
    if (!this.#info.hasPrimaryKey) {
      throw new FlussError(
        'NON_PRIMARY_KEY_TABLE_EXCEPTION',
        `Table ${tableName(this.#info)} is not a Primary Key Table and doesn't support UpsertWriter.`,
      )
    }
    return new Upsert(this.#ctx, this.#info)
  }

  /** Looks up rows of a primary-key table by primary key, or by a bucket-key prefix (`lookupBy`). */
  newLookup(): Lookup {
    const context = {
      info: this.#info,
      metadata: this.#ctx.metadata,
      client: this.#ctx.lookupClient(),
      decoder: new ValueDecoder(this.#info, this.#schemas),
    }
    return new Lookup(context)
  }

  /** Reads the table's log, or (with `limit`) the first rows of a bucket. */
  newScan(): Scan {
    const { metadata, options, trackScanner, untrackScanner } = this.#ctx
    const scanContext = {
      metadata,
      options: options.scanner,
      requestTimeoutMs: options.requestTimeoutMs,
      track: trackScanner,
      untrack: untrackScanner,
      decoder: () => new ValueDecoder(this.#info, this.#schemas),
      schemas: this.#schemas,
    }
    return new Scan(this.#info, scanContext)
  }
}

/** Builds append writers (Fluss's `Append`). */
export class Append {
  readonly #ctx: TableContext
  readonly #info: TableInfo

  constructor(ctx: TableContext, info: TableInfo) {
    this.#ctx = ctx
    this.#info = info
  }

  createWriter(options: AppendWriterOptions = {}): AppendWriter {
    const info = this.#info
    const format = info.tableConfig.get(TABLE_LOG_FORMAT)
    if (format !== 'ARROW') {
      throw new FlussError(
        'INVALID_TABLE_EXCEPTION',
        `Table ${info.tablePath.databaseName}.${info.tablePath.tableName} has log format ${format}; this client writes ARROW logs only`,
      )
    }
    const { metadata, admin, writerMemory, options: clientOptions } = this.#ctx
    const network = new ClusterWriterNetwork(
      metadata,
      admin,
      info,
      clientOptions.writer.dynamicCreatePartition,
    )
    const bucketAssigner = createBucketAssigner(info, clientOptions.writer.noKeyAssigner, p =>
      network.availableBuckets(p),
    )
    const writer = new AppendWriter(
      {
        info,
        options: clientOptions.writer,
        compression: tableCompression(info),
        memory: writerMemory,
        network,
        bucketAssigner,
        onClosed: this.#ctx.untrackWriter,
      },
      options,
    )
    this.#ctx.trackWriter(writer)
    return writer
  }
}
