import { applySchemaChanges, Schema, TableDescriptor, TableInfo, tablePath } from '@sluice/core/metadata'
import { CompactedRowEncoder, encodeValue } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { SchemaCache, ValueDecoder } from './value-decoder.js'

const v1 = Schema.newBuilder()
  .column('id', DataTypes.INT())
  .column('a', DataTypes.INT())
  .primaryKey('id')
  .build()
const d1 = TableDescriptor.builder().schema(v1).distributedBy(1).build()
const d2 = applySchemaChanges(d1, [
  { kind: 'add', name: 'note', dataType: DataTypes.STRING() },
  { kind: 'modify', name: 'a', dataType: DataTypes.BIGINT() },
]) as TableDescriptor
const path = tablePath('db', 't')

function decoderAt2(fetched: number[]): ValueDecoder {
  const info = TableInfo.of(path, 7, 2, d2, 0, 0)
  const cache = new SchemaCache(info, {
    getTableSchema: async (_path, schemaId) => {
      fetched.push(schemaId as number)
      if (schemaId !== 1) throw new Error(`no schema ${schemaId}`)
      return { schemaId: 1, schema: v1 } as never
    },
  })
  return new ValueDecoder(info, cache)
}

const value = (schema: Schema, schemaId: number, row: unknown[]) =>
  encodeValue(schemaId, new CompactedRowEncoder(schema.rowType).encode(row as never))

describe('ValueDecoder.decodeLoaded', () => {
  it('decodes values of loaded schemas at once, and none of a schema not fetched yet', async () => {
    const fetched: number[] = []
    const decoder = decoderAt2(fetched)
    const old = value(v1, 1, [1, 10])
    expect(decoder.decodeLoaded(value(d2.schema, 2, [2, 20n, 'x']))).toEqual([2, 20n, 'x'])
    expect(decoder.decodeLoaded(old)).toBeUndefined()
    expect(fetched).toEqual([])
    expect(await decoder.decodeAll([old])).toEqual([[1, 10n, null]])
    // Once fetched, a value of schema 1 is mapped by column id (widened, padded) without waiting.
    expect(decoder.decodeLoaded(value(v1, 1, [3, 30]))).toEqual([3, 30n, null])
    expect(fetched).toEqual([1])
  })

  it('refuses a value too short to carry a schema id', () => {
    expect(() => decoderAt2([]).decodeLoaded(Buffer.from([1]))).toThrow(
      expect.objectContaining({ errorName: 'CORRUPT_RECORD_EXCEPTION' }),
    )
  })
})
