import { ArrowBatchReader, ArrowBatchWriter, projectRowType } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { applySchemaChanges, type Schema, TableDescriptor } from '@sluice/core/metadata'
import { buildLogBatch, LOG_OVERHEAD, MemoryLogRecords } from '@sluice/core/record'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { LOG_SCHEMA, rows } from '../testing/cluster.js'
import { checkProjectedFields, projectLogRecords } from './log-projection.js'

const rowType = LOG_SCHEMA.rowType
const at = (schemaId: number, fields: number[]) => ({ schemaId, rowType, fields })

function changelogBatch(baseOffset: number): Buffer {
  const writer = new ArrowBatchWriter(rowType)
  for (const r of rows(0, 3)) writer.addRow(r)
  return buildLogBatch({
    schemaId: 1,
    appendOnly: false,
    recordCount: 3,
    changeTypes: [1, 2, 3],
    records: writer.finish(),
    baseOffset,
  })
}

describe('projectLogRecords', () => {
  it('keeps the header and change-type vector and rewrites Length', async () => {
    const empty = buildLogBatch({
      schemaId: 1,
      appendOnly: true,
      recordCount: 0,
      records: new Uint8Array(0),
      baseOffset: 3,
    })
    const input = Buffer.concat([changelogBatch(0), empty, changelogBatch(4)])
    const out = await projectLogRecords(input, () => rowType, at(1, [2]))
    const batches = [...new MemoryLogRecords(out).batches()]
    expect(batches.map(b => [b.baseOffset, b.recordCount])).toEqual([
      [0, 3],
      [3, 0],
      [4, 3],
    ])
    for (const b of [batches[0], batches[2]]) {
      expect([...(b.changeTypes() ?? [])]).toEqual([1, 2, 3])
      expect(b.sizeInBytes).toBe(b.length + LOG_OVERHEAD)
      const projected = new ArrowBatchReader(b.arrowPayload(), projectRowType(rowType, [2])).toRows()
      expect(projected).toEqual(rows(0, 3).map(r => [r[2]]))
    }
    expect(batches[1].bytes().equals(empty)).toBe(true)
  })

  it('looks the row type up by each batch schema id', async () => {
    const seen: number[] = []
    await projectLogRecords(
      changelogBatch(0),
      id => {
        seen.push(id)
        return rowType
      },
      at(1, [0]),
    )
    expect(seen).toEqual([1])
  })

  it('projects batches of other schema versions by column id, padding columns they lack', async () => {
    const v1 = LOG_SCHEMA
    const v2 = applySchemaChanges(TableDescriptor.builder().schema(v1).distributedBy(1).build(), [
      { kind: 'add', name: 'extra', dataType: DataTypes.STRING() },
      { kind: 'drop', name: v1.columnNames[0] },
    ])?.schema as Schema
    const old = changelogBatch(0)
    const projection = { schemaId: 2, rowType: v2.rowType, fields: [1, v2.columnNames.length - 1] }
    const out = await projectLogRecords(old, id => (id === 1 ? v1.rowType : v2.rowType), projection)
    const [batch] = [...new MemoryLogRecords(out).batches()]
    expect(batch.schemaId).toBe(1)
    const read = new ArrowBatchReader(batch.arrowPayload(), projectRowType(v2.rowType, projection.fields))
    expect(read.toRows()).toEqual(rows(0, 3).map(r => [r[2], null]))
  })

  it('fails on a batch whose Arrow message does not match the row type', async () => {
    const garbage = buildLogBatch({
      schemaId: 1,
      appendOnly: true,
      recordCount: 1,
      records: Buffer.from('not arrow'),
    })
    await expect(projectLogRecords(garbage, () => rowType, at(1, [0]))).rejects.toBeInstanceOf(FlussError)
  })
})

describe('checkProjectedFields', () => {
  it('accepts ascending unique indexes and refuses the rest', () => {
    expect(() => checkProjectedFields(rowType, [0, 2])).not.toThrow()
    expect(() => checkProjectedFields(rowType, [])).not.toThrow()
    for (const bad of [[1, 0], [0, 0], [3], [-1], [0.5]]) {
      expect(() => checkProjectedFields(rowType, bad)).toThrow(
        expect.objectContaining({ errorName: 'INVALID_COLUMN_PROJECTION' }),
      )
    }
  })

  it("words its refusals as Fluss's FileLogProjection does", () => {
    const message = (fields: number[]) => {
      try {
        checkProjectedFields(rowType, fields)
      } catch (e) {
        return (e as Error).message
      }
      throw new Error('accepted')
    }
    expect(message([1, 0])).toBe('The projection indexes should be in field order, but is [1, 0]')
    expect(message([0, 0])).toBe('The projection indexes should not contain duplicated fields, but is [0, 0]')
    expect(message([0, 3])).toBe(
      `Projected fields [0, 3] is out of bound for schema with ${rowType.fields.length} fields.`,
    )
  })
})
