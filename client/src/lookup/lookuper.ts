import type { BucketingFunction } from '@sluice/core/bucketing'
import { FlussError, toFlussError } from '@sluice/core/errors'
import { partitionGetter, type TableInfo, tableBucket } from '@sluice/core/metadata'
import { type KeyEncoder, keyPositions, type Row } from '@sluice/core/row'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { projectFields, tableKeyEncoders } from '../table/key-encoding.js'
import { RowConverter, type RowInput } from '../table/row-converter.js'
import type { ValueDecoder } from '../table/value-decoder.js'
import type { LookupClient } from './lookup-client.js'
import type { LookupKind } from './lookup-queue.js'

/** The rows a lookup found (Fluss's `LookupResult`). */
export class LookupResult {
  static readonly EMPTY = new LookupResult([])
  readonly #rows: readonly Row[]

  constructor(rows: readonly Row[]) {
    this.#rows = rows
  }

  /** Every row found: at most one for a primary key lookup, any number (key order) for a prefix lookup. */
  rows(): readonly Row[] {
    return this.#rows
  }

  /** The one row found, or null when the key is absent; INVALID_REQUEST when several were found. */
  singletonRow(): Row | null {
    if (this.#rows.length > 1) {
      throw new FlussError(
        'INVALID_REQUEST',
        `The lookup found ${this.#rows.length} rows: read prefix lookup results with rows()`,
      )
    }
    return this.#rows[0] ?? null
  }
}

/** What a lookuper shares with its table and connection. */
export interface LookuperContext {
  readonly info: TableInfo
  readonly metadata: MetadataUpdater
  readonly client: LookupClient
  readonly decoder: ValueDecoder
}

/**
 * Looks up rows of a primary-key table (Fluss's `PrimaryKeyLookuper` and `PrefixKeyLookuper`).
 * A key row gives the lookup columns (the primary key, or the `lookupBy` columns) in order, or as an
 * object keyed by their names. The key is encoded as the server stores it (the table's primary-key
 * encoding of the physical primary key, or of the bucket key for a prefix; see `keyEncoderFor`),
 * routed to its bucket (the table's bucket-key encoding and bucketing) and partition,
 * and batched with other lookups (see LookupClient). Rows come back in the table's current schema. A
 * lookup in a partition that does not exist finds nothing.
 */
export class Lookuper {
  readonly #ctx: LookuperContext
  readonly #kind: LookupKind
  readonly #converter: RowConverter
  readonly #keyEncoder: KeyEncoder
  readonly #bucketKeyEncoder: KeyEncoder
  readonly #bucketing: BucketingFunction
  readonly #partitionOf: ((row: Row) => string) | undefined

  /** `columns`: the lookup columns, in key row order; `kind` says what they are. */
  constructor(ctx: LookuperContext, kind: LookupKind, columns: readonly string[]) {
    const info = ctx.info
    this.#ctx = ctx
    this.#kind = kind
    const lookupRowType = projectFields(info.rowType, keyPositions(info.rowType, columns))
    this.#converter = new RowConverter(lookupRowType, 'the lookup key has')
    const keyColumns = kind === 'LOOKUP' ? info.physicalPrimaryKeys : info.bucketKeys
    const encoders = tableKeyEncoders(info, lookupRowType, keyColumns)
    this.#keyEncoder = encoders.key
    this.#bucketKeyEncoder = encoders.bucketKey
    this.#bucketing = encoders.bucketing
    this.#partitionOf = info.isPartitioned ? partitionGetter(lookupRowType, info.partitionKeys) : undefined
  }

  /** Looks up one key row; rejects with INVALID_REQUEST for a bad key (naming the column). */
  async lookup(key: RowInput): Promise<LookupResult> {
    const { info, client, decoder } = this.#ctx
    const row = this.#converter.toRow(key)
    const bucketId = this.#bucketing(this.#bucketKeyEncoder.encodeKeyView(row), info.numBuckets)
    const encoded = this.#keyEncoder.encodeKey(row)
    let partitionId: number | undefined
    if (this.#partitionOf !== undefined) {
      partitionId = await this.#partitionId(this.#partitionOf(row))
      if (partitionId === undefined) return LookupResult.EMPTY
    }
    const bucket = tableBucket(info.tableId, bucketId, partitionId)
    const values = await client.lookup(this.#kind, info.tablePath, bucket, encoded)
    return values.length === 0 ? LookupResult.EMPTY : new LookupResult(await decoder.decodeAll(values))
  }

  /** The id of a partition, or undefined when it does not exist. */
  async #partitionId(partitionName: string): Promise<number | undefined> {
    const { info, metadata } = this.#ctx
    const known = metadata.cluster.partitionId(info.tableId, partitionName)
    if (known !== undefined) return known
    try {
      const cluster = await metadata.update({
        tables: [info.tablePath],
        partitions: [{ tablePath: info.tablePath, partitionName }],
      })
      return cluster.partitionId(info.tableId, partitionName)
    } catch (e) {
      const error = toFlussError(e)
      if (error.is('PARTITION_NOT_EXISTS')) return undefined
      throw error
    }
  }
}
