import { FlussError } from '@sluice/core/errors'
import { ColumnMapping, type Schema } from '@sluice/core/metadata'
import {
  CompactedKeyEncoder,
  CompactedRowDecoder,
  CompactedRowEncoder,
  encodeValue,
  keyPositions,
  type Row,
  type Value,
} from '@sluice/core/row'
import type { RowType } from '@sluice/core/types'
import { compactedPrimaryKeyDecoder, type PrimaryKeyDecoderFactory } from './kv-key-encoding.js'

/**
 * Where a KvTablet gets its schemas from (Fluss's `SchemaGetter`), each with what the write path
 * derives from it. Both calls are synchronous: the table's schemas are known before they are used
 * (`TableSchemas` loads a newer one before a put of it is applied).
 */
export interface KvSchemaSource {
  /** The newest schema of the table. */
  latest(): SchemaContext
  /** A schema by id; SCHEMA_NOT_EXIST when the id is unknown. */
  context(schemaId: number): SchemaContext
}

/** Encodes the KV key (the physical primary key) of full rows of one row type. */
export interface PrimaryKeyEncoder {
  encodeKey(row: readonly Value[]): Buffer
}

/**
 * Builds the key encoder of a row type. The default is Fluss's CompactedKeyEncoder over the physical
 * primary key; lake tables whose bucket key is the primary key key their rows with the lake's
 * encoder instead, which the tablet server must then supply (`kvKeyEncoding(tableInfo)`).
 */
export type PrimaryKeyEncoderFactory = (
  rowType: RowType,
  physicalPrimaryKeys: readonly string[],
) => PrimaryKeyEncoder

export const compactedPrimaryKeyEncoder: PrimaryKeyEncoderFactory = (rowType, physicalPrimaryKeys) =>
  new CompactedKeyEncoder(rowType, keyPositions(rowType, physicalPrimaryKeys))

/** How a table's KV keys are made: their columns, and their encoding and decoding. */
export interface KvKeys {
  /** Primary key minus partition keys (`TableInfo.physicalPrimaryKeys`): the columns of a KV key. */
  readonly physicalPrimaryKeys: readonly string[]
  /**
   * The KV key encoder (default: CompactedKeyEncoder of the physical primary key). Recovery re-keys
   * the changelog with it, so it must match the clients' key encoding of the table.
   */
  readonly primaryKeyEncoder?: PrimaryKeyEncoderFactory
  /**
   * The decoder of those keys, for insert-if-not-exists lookups (default: CompactedKeyDecoder when
   * `primaryKeyEncoder` is the default too; such lookups are refused when only the encoder is given).
   * `kvKeyEncoding(tableInfo)` gives both.
   */
  readonly primaryKeyDecoder?: PrimaryKeyDecoderFactory
}

/**
 * A KV value (Fluss's `BinaryValue`): the schema its row is encoded with, the row's values (as many
 * as that schema has columns) and the stored bytes `[schemaId int16][CompactedRow]`.
 */
export interface KvValue {
  readonly schemaId: number
  readonly row: Row
  readonly bytes: Buffer
}

/** Everything derived from one schema version that the write path needs, built once per id. */
export class SchemaContext {
  readonly rowType: RowType
  readonly fieldCount: number
  readonly decoder: CompactedRowDecoder
  readonly encoder: CompactedRowEncoder
  /** Column id -> position, to match columns across schema versions. */
  readonly indexByColumnId: ReadonlyMap<number, number>
  readonly columnIds: readonly number[]
  readonly primaryKeyIndexes: readonly number[]
  readonly notNullIndexes: readonly number[]
  readonly autoIncrementIndex: number
  readonly keyEncoder: PrimaryKeyEncoder
  /** Primary key minus partition keys: the columns of a KV key. */
  readonly physicalPrimaryKeys: readonly string[]
  /** The decoding of KV keys (insert-if-not-exists lookups); null when the table has none. */
  readonly keyDecoder: PrimaryKeyDecoderFactory | null

  constructor(
    readonly schemaId: number,
    readonly schema: Schema,
    keys: KvKeys,
  ) {
    this.rowType = schema.rowType
    this.fieldCount = this.rowType.fields.length
    this.decoder = new CompactedRowDecoder(this.rowType)
    this.encoder = new CompactedRowEncoder(this.rowType)
    this.columnIds = schema.columnIds
    this.indexByColumnId = new Map(this.columnIds.map((id, i) => [id, i]))
    this.primaryKeyIndexes = schema.primaryKeyIndexes
    this.notNullIndexes = this.rowType.fields.flatMap((f, i) => (f.type.nullable ? [] : [i]))
    const autoInc = schema.autoIncrementColumnNames[0]
    this.autoIncrementIndex = autoInc === undefined ? -1 : schema.columnIndex(autoInc)
    const { physicalPrimaryKeys, primaryKeyEncoder, primaryKeyDecoder } = keys
    this.physicalPrimaryKeys = physicalPrimaryKeys
    this.keyEncoder = (primaryKeyEncoder ?? compactedPrimaryKeyEncoder)(this.rowType, physicalPrimaryKeys)
    this.keyDecoder =
      primaryKeyDecoder ?? (primaryKeyEncoder === undefined ? compactedPrimaryKeyDecoder : null)
  }

  readonly #mappings = new Map<number, ColumnMapping>()

  /** How rows of `source` read as rows of this schema (by column id), built once per source. */
  mappingFrom(source: SchemaContext): ColumnMapping {
    let mapping = this.#mappings.get(source.schemaId)
    if (mapping === undefined) {
      mapping = ColumnMapping.between(source.schema, this.schema)
      this.#mappings.set(source.schemaId, mapping)
    }
    return mapping
  }

  /**
   * `value` as a value of this schema: itself when it is one, else its row mapped by column id
   * (added columns NULL, dropped ones gone, widened ones converted) and encoded again.
   */
  adopt(value: KvValue, schemas: KvSchemaSource): KvValue {
    if (value.schemaId === this.schemaId) return value
    return this.encode(this.mappingFrom(schemas.context(value.schemaId)).map(value.row))
  }

  columnNames(indexes: readonly number[]): string {
    return `[${indexes.map(i => this.rowType.fields[i].name).join(', ')}]`
  }

  /** A value whose row is encoded with this schema; the stored bytes are computed here. */
  encode(row: Row): KvValue {
    return { schemaId: this.schemaId, row, bytes: encodeValue(this.schemaId, this.encoder.encodeView(row)) }
  }
}

/** Decodes stored value bytes `[schemaId][row]` with the schema they name. */
export function decodeKvValue(schemas: KvSchemaSource, bytes: Buffer): KvValue {
  if (bytes.length < 2) {
    throw new FlussError('CORRUPT_RECORD_EXCEPTION', `A KV value of ${bytes.length} bytes has no schema id`)
  }
  const schemaId = bytes.readInt16LE(0)
  const row = schemas.context(schemaId).decoder.decode(bytes, 2)
  return { schemaId, row, bytes }
}
