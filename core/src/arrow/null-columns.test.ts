import { tableFromIPC } from 'apache-arrow'
import { beforeAll, describe, expect, it } from 'vitest'
import { DataTypes, type RowType } from '../types/data-type.js'
import { ArrowBatchReader } from './batch-reader.js'
import { ArrowBatchWriter } from './batch-writer.js'
import { type ArrowCompressionType, initArrowCodecs } from './compression.js'
import { projectWithNullColumns } from './null-columns.js'
import { schemaMessage } from './schema.js'

const field = (name: string, type: RowType['fields'][number]['type'], fieldId: number) => ({
  name,
  type,
  fieldId,
})
const written: RowType = {
  type: 'ROW',
  nullable: false,
  fields: [
    field('a', DataTypes.INT(), 0),
    field('b', DataTypes.STRING(), 1),
    field('c', DataTypes.DOUBLE(), 2),
  ],
}
const added = DataTypes.ARRAY(DataTypes.STRING())
const read: RowType = {
  type: 'ROW',
  nullable: false,
  fields: [
    field('a', DataTypes.INT(), 0),
    field('x', DataTypes.BIGINT(), 5),
    field('c', DataTypes.DOUBLE(), 2),
    field('tags', added, 6),
  ],
}
const rows = Array.from({ length: 37 }, (_, i) => [i, `s${i}`, i % 3 === 0 ? null : i / 2])

beforeAll(() => initArrowCodecs())

describe('projectWithNullColumns', () => {
  for (const type of ['NONE', 'LZ4_FRAME', 'ZSTD'] as ArrowCompressionType[]) {
    it(`keeps source columns and fills missing ones with NULLs (${type})`, () => {
      const writer = new ArrowBatchWriter(written, { compression: { type } })
      for (const r of rows) writer.addRow(r)
      const message = writer.finish()
      const columns = [0, { nullOf: DataTypes.BIGINT(), name: 'x' }, 2, { nullOf: added, name: 'tags' }]
      const out = projectWithNullColumns(message, written, columns)
      const reader = new ArrowBatchReader(out, read)
      expect(Array.from({ length: reader.recordCount }, (_, i) => reader.getRow(i))).toEqual(
        rows.map(r => [r[0], null, r[2], null]),
      )
      if (type !== 'NONE') return
      // An independent reader agrees.
      const stream = Buffer.concat([schemaMessage(read), out, Buffer.from([255, 255, 255, 255, 0, 0, 0, 0])])
      const table = tableFromIPC(stream)
      expect(table.numRows).toBe(rows.length)
      expect(table.getChild('x')?.nullCount).toBe(rows.length)
      expect(table.getChild('tags')?.nullCount).toBe(rows.length)
      expect(table.getChild('a')?.toArray()[36]).toBe(36)
    })
  }

  it('is the plain projection when every column is in the source', () => {
    const writer = new ArrowBatchWriter(written)
    for (const r of rows) writer.addRow(r)
    const out = projectWithNullColumns(writer.finish(), written, [0, 2])
    const reader = new ArrowBatchReader(out, { ...read, fields: [read.fields[0], read.fields[2]] })
    expect(reader.getRow(4)).toEqual([4, 2])
  })
})
