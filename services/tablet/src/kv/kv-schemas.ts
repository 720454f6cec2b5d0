import { FlussError } from '@sluice/core/errors'
import type { Schema } from '@sluice/core/metadata'
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

/**
 * Where a KvTablet gets its schemas from (Fluss's `SchemaGetter`). Both calls are synchronous: the
 * replica keeps the table's schemas cached and updates `latest` when the table is altered.
 */
export interface KvSchemaSource {
  /** The newest schema of the table and its id. */
  latest(): { readonly schemaId: number; readonly schema: Schema }
  /** A schema by id; undefined when the id is unknown. */
  byId(schemaId: number): Schema | undefined
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

/** A schema source of one fixed schema. */
export function fixedSchemaSource(schemaId: number, schema: Schema): KvSchemaSource {
  return {
    latest: () => ({ schemaId, schema }),
    byId: id => (id === schemaId ? schema : undefined),
  }
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

  constructor(
    readonly schemaId: number,
    readonly schema: Schema,
    physicalPrimaryKeys: readonly string[],
    keyEncoder: PrimaryKeyEncoderFactory = compactedPrimaryKeyEncoder,
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
    this.keyEncoder = keyEncoder(this.rowType, physicalPrimaryKeys)
  }

  columnNames(indexes: readonly number[]): string {
    return `[${indexes.map(i => this.rowType.fields[i].name).join(', ')}]`
  }

  /** A value whose row is encoded with this schema; the stored bytes are computed here. */
  encode(row: Row): KvValue {
    return { schemaId: this.schemaId, row, bytes: encodeValue(this.schemaId, this.encoder.encodeView(row)) }
  }
}

/** Schema contexts of one table, cached by id, plus the latest one. */
export class KvSchemas {
  readonly #contexts = new Map<number, SchemaContext>()

  constructor(
    readonly source: KvSchemaSource,
    readonly physicalPrimaryKeys: readonly string[],
    readonly keyEncoder: PrimaryKeyEncoderFactory = compactedPrimaryKeyEncoder,
  ) {}

  latest(): SchemaContext {
    const { schemaId, schema } = this.source.latest()
    const cached = this.#contexts.get(schemaId)
    if (cached !== undefined && cached.schema === schema) return cached
    const context = new SchemaContext(schemaId, schema, this.physicalPrimaryKeys, this.keyEncoder)
    this.#contexts.set(schemaId, context)
    return context
  }

  /** The context of `schemaId`; SCHEMA_NOT_EXIST when the id is unknown. */
  context(schemaId: number): SchemaContext {
    const cached = this.#contexts.get(schemaId)
    if (cached !== undefined) return cached
    const schema = this.source.byId(schemaId)
    if (schema === undefined) {
      throw new FlussError('SCHEMA_NOT_EXIST', `Schema with ID ${schemaId} not found`)
    }
    const context = new SchemaContext(schemaId, schema, this.physicalPrimaryKeys, this.keyEncoder)
    this.#contexts.set(schemaId, context)
    return context
  }

  /** Decodes stored value bytes `[schemaId][row]` with the schema they name. */
  decodeValue(bytes: Buffer): KvValue {
    if (bytes.length < 2) {
      throw new FlussError('CORRUPT_RECORD_EXCEPTION', `A KV value of ${bytes.length} bytes has no schema id`)
    }
    const schemaId = bytes.readInt16LE(0)
    const row = this.context(schemaId).decoder.decode(bytes, 2)
    return { schemaId, row, bytes }
  }
}

/** The row padded with trailing NULLs to `fieldCount` columns (rows of older schemas have fewer). */
export function padRow(row: Row, fieldCount: number): Row {
  if (row.length === fieldCount) return row
  const padded: Value[] = row.slice(0, fieldCount)
  while (padded.length < fieldCount) padded.push(null)
  return padded
}
