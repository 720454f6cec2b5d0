import { ArrowBatchWriter } from '@sluice/core/arrow'
import { applySchemaChanges, Schema, TableDescriptor, TableInfo, tablePath } from '@sluice/core/metadata'
import { buildLogBatch, LogRecordBatch } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { DataTypes, type RowType } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import type { SchemaInfo } from '../admin/admin.js'
import { SchemaCache } from '../table/value-decoder.js'
import { LogBatchDecoding } from './batch-decoding.js'
import { decodeBatch } from './completed-fetch.js'

/** v1: a INT, b STRING. v2: add c DOUBLE, rename b → bb, widen a to BIGINT. v3: drop bb. */
const v1 = TableDescriptor.builder()
  .schema(Schema.newBuilder().column('a', DataTypes.INT()).column('b', DataTypes.STRING()).build())
  .distributedBy(1)
  .build()
const v2 = applySchemaChanges(v1, [
  { kind: 'add', name: 'c', dataType: DataTypes.DOUBLE() },
  { kind: 'rename', name: 'b', newName: 'bb' },
  { kind: 'modify', name: 'a', dataType: DataTypes.BIGINT() },
]) as TableDescriptor
const v3 = applySchemaChanges(v2, [{ kind: 'drop', name: 'bb' }]) as TableDescriptor
const versions = new Map([
  [1, v1.schema],
  [2, v2.schema],
  [3, v3.schema],
])

/** The table as got at `schemaId`, with a schema source that counts GET_TABLE_SCHEMA calls. */
function reader(schemaId: number, pushdown?: number[]) {
  const calls: number[] = []
  const admin = {
    async getTableSchema(_path: unknown, id?: number): Promise<SchemaInfo> {
      const schema = versions.get(id ?? 3)
      if (schema === undefined) throw new Error(`no schema ${id}`)
      calls.push(id ?? 3)
      return { schemaId: id ?? 3, schema }
    },
  }
  const descriptor = [v1, v2, v3][schemaId - 1]
  const info = TableInfo.of(tablePath('db', 't'), 7, schemaId, descriptor, 0, 0)
  const cache = new SchemaCache(info, admin)
  return { calls, decoding: new LogBatchDecoding(schemaId, info.schema, pushdown, cache) }
}

function batch(schemaId: number, rowType: RowType, rows: Row[]): Buffer {
  const writer = new ArrowBatchWriter(rowType)
  for (const r of rows) writer.addRow(r)
  return buildLogBatch({ schemaId, appendOnly: true, recordCount: rows.length, records: writer.finish() })
}

const rowsOf = (bytes: Buffer, decoding: LogBatchDecoding, projected = false) =>
  decodeBatch(new LogRecordBatch(bytes), 0, {
    decoding,
    projected,
    reorder: undefined,
    checkCrc: !projected,
  }).map(r => r.row)

describe('LogBatchDecoding', () => {
  it('reads batches of an older schema by column id: widened, renamed, padded with NULL', async () => {
    const { decoding, calls } = reader(2)
    const old = batch(1, v1.schema.rowType, [
      [1, 'x'],
      [2, null],
    ])
    expect(decoding.missing(old)).toEqual([1])
    expect(() => rowsOf(old, decoding)).toThrow(expect.objectContaining({ errorName: 'SCHEMA_NOT_EXIST' }))
    await decoding.load(decoding.missing(old))
    expect(decoding.missing(old)).toEqual([])
    expect(rowsOf(old, decoding)).toEqual([
      [1n, 'x', null],
      [2n, null, null],
    ])
    expect(calls).toEqual([1])
  })

  it('reads batches of a newer schema with the reader’s schema (a writer that refreshed first)', async () => {
    const { decoding } = reader(1)
    const newer = batch(2, v2.schema.rowType, [[5n, 'y', 1.5]])
    await decoding.load(decoding.missing(newer))
    expect(rowsOf(newer, decoding)).toEqual([[5, 'y']])
    const tooWide = batch(2, v2.schema.rowType, [[2n ** 40n, 'z', 0]])
    expect(() => rowsOf(tooWide, decoding)).toThrow(expect.objectContaining({ errorName: 'STALE_SCHEMA' }))
  })

  it('leaves a dropped column out of batches written before the drop', async () => {
    const { decoding } = reader(3)
    const before = batch(2, v2.schema.rowType, [[3n, 'gone', 2.5]])
    await decoding.load(decoding.missing(before))
    expect(rowsOf(before, decoding)).toEqual([[3n, 2.5]])
  })

  it('reads a projected payload of an older batch: its own types, all-NULL for columns it lacks', async () => {
    // Projection [a, c] of v2: a v1 batch comes back as a INT (v1's type) and c as an all-NULL DOUBLE.
    const { decoding } = reader(2, [0, 2])
    const projectedType = DataTypes.ROW([
      { name: 'a', type: DataTypes.INT(), fieldId: 0 },
      { name: 'c', type: DataTypes.DOUBLE(), fieldId: 2 },
    ])
    const old = batch(1, projectedType, [[4, null]])
    await decoding.load(decoding.missing(old))
    expect(rowsOf(old, decoding, true)).toEqual([[4n, null]])
    const current = batch(2, DataTypes.ROW([v2.schema.rowType.fields[0], v2.schema.rowType.fields[2]]), [
      [9n, 0.5],
    ])
    expect(rowsOf(current, decoding, true)).toEqual([[9n, 0.5]])
  })

  it('reports nothing missing for empty or truncated records', () => {
    const { decoding } = reader(2)
    expect(decoding.missing(null)).toEqual([])
    expect(decoding.missing(Buffer.alloc(0))).toEqual([])
    const old = batch(1, v1.schema.rowType, [[1, 'x']])
    expect(decoding.missing(old.subarray(0, 20))).toEqual([])
  })
})
