import type { BucketingFunction } from '@sluice/core/bucketing'
import { FlussError, toFlussError } from '@sluice/core/errors'
import { partitionGetter, type TableBucket, type TableInfo, tableBucket } from '@sluice/core/metadata'
import {
  CompactedRowDecoder,
  type KeyEncoder,
  keyPositions,
  type Row,
  SCHEMA_ID_LENGTH,
} from '@sluice/core/row'
import type { MetadataUpdater } from '../metadata/metadata-updater.js'
import { projectFields, tableKeyEncoders } from '../table/key-encoding.js'
import { type ObjectRow, rowObjectRenderer } from '../table/nested-values.js'
import { RowConverter, type RowInput } from '../table/row-converter.js'
import type { ValueDecoder } from '../table/value-decoder.js'
import type { LookupClient } from './lookup-client.js'
import type { LookupKind } from './lookup-queue.js'

/** The rows a lookup found (Fluss's `LookupResult`). */
export class LookupResult {
  static readonly EMPTY = new LookupResult([])
  readonly #rows: readonly Row[]
  readonly #render: ((row: Row) => ObjectRow) | undefined

  /** `render`: how `objects()` renders a row (the table's columns by name). */
  constructor(rows: readonly Row[], render?: (row: Row) => ObjectRow) {
    this.#rows = rows
    this.#render = render
  }

  /**
   * Every row found as an object keyed by column name, nested ROW values as objects keyed by field
   * name (`{ id: 1, point: { x: 1, label: 'a' } }`); MAP values stay Maps.
   */
  objects(): ObjectRow[] {
    const render = this.#render
    if (render === undefined && this.#rows.length > 0)
      throw new FlussError('INVALID_REQUEST', 'This lookup result does not know its column names')
    return this.#rows.map(r => (render as (row: Row) => ObjectRow)(r))
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
  /** Decodes values stored under the table's current schema (others go through the ValueDecoder). */
  readonly #rowDecoder: CompactedRowDecoder
  /** The buckets of a non-partitioned table, made once: lookups of one bucket share the object. */
  readonly #buckets: readonly TableBucket[]
  readonly #onValues = (values: readonly Buffer[]) => this.#result(values)
  readonly #render: (row: Row) => ObjectRow

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
    this.#rowDecoder = new CompactedRowDecoder(info.rowType)
    this.#render = rowObjectRenderer(info.rowType)
    this.#buckets = info.isPartitioned
      ? []
      : Array.from({ length: info.numBuckets }, (_, bucket) => tableBucket(info.tableId, bucket))
  }

  /** Looks up one key row; rejects with INVALID_REQUEST for a bad key (naming the column). */
  lookup(key: RowInput): Promise<LookupResult> {
    const info = this.#ctx.info
    let row: Row
    let encoded: Buffer
    let bucketId: number
    try {
      row = this.#converter.toRow(key)
      if (this.#bucketKeyEncoder === this.#keyEncoder) {
        // One encoder for both means the same bytes: the bucket key is the key itself.
        encoded = this.#keyEncoder.encodeKey(row)
        bucketId = this.#bucketing(encoded, info.numBuckets)
      } else {
        bucketId = this.#bucketing(this.#bucketKeyEncoder.encodeKeyView(row), info.numBuckets)
        encoded = this.#keyEncoder.encodeKey(row)
      }
    } catch (e) {
      return Promise.reject(e)
    }
    if (this.#partitionOf !== undefined) return this.#lookupInPartition(row, bucketId, encoded)
    const bucket = this.#buckets[bucketId] ?? tableBucket(info.tableId, bucketId)
    return this.#ctx.client.lookup(this.#kind, info.tablePath, bucket, encoded).then(this.#onValues)
  }

  async #lookupInPartition(row: Row, bucketId: number, encoded: Buffer): Promise<LookupResult> {
    const info = this.#ctx.info
    const partitionId = await this.#partitionId((this.#partitionOf as (row: Row) => string)(row))
    if (partitionId === undefined) return LookupResult.EMPTY
    const bucket = tableBucket(info.tableId, bucketId, partitionId)
    return this.#result(await this.#ctx.client.lookup(this.#kind, info.tablePath, bucket, encoded))
  }

  /**
   * The rows of the stored values, decoded at once when all are of schemas known already (the
   * table's current one, or older ones fetched before); otherwise after fetching the missing ones.
   */
  #result(values: readonly Buffer[]): LookupResult | Promise<LookupResult> {
    if (values.length === 0) return LookupResult.EMPTY
    const schemaId = this.#ctx.info.schemaId
    const rows: Row[] = []
    for (const value of values) {
      if (value.length >= SCHEMA_ID_LENGTH && value.readInt16LE(0) === schemaId) {
        rows.push(this.#rowDecoder.decode(value, SCHEMA_ID_LENGTH, value.length - SCHEMA_ID_LENGTH))
        continue
      }
      const row = this.#ctx.decoder.decodeLoaded(value)
      if (row === undefined) {
        return this.#ctx.decoder.decodeAll(values).then(all => new LookupResult(all, this.#render))
      }
      rows.push(row)
    }
    return new LookupResult(rows, this.#render)
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
