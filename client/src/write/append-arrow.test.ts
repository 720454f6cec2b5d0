import {
  ArrowBatchWriter,
  type ArrowCompressionInfo,
  readRecordBatchInfo,
  writeArrowStream,
} from '@sluice/core/arrow'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { Decimal, type Row } from '@sluice/core/row'
import { DataTypes, notNull, type RowType } from '@sluice/core/types'
import { Table as ArrowTable, Float64, Int32, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow'
import { afterEach, describe, expect, it } from 'vitest'
import { type Cleanups, createTable, runCleanups, startClient } from '../testing/client-fixture.js'
import type { FakeCluster } from '../testing/fake-cluster.js'
import { validateArrowBatch } from './arrow-batch-input.js'

const cleanups: Cleanups = []
afterEach(() => runCleanups(cleanups))

const schema = Schema.newBuilder()
  .column('id', notNull(DataTypes.INT()))
  .column('name', DataTypes.STRING())
  .column('price', DataTypes.DECIMAL(5, 2))
  .build()
const rowType = schema.rowType
const path = { databaseName: 'fluss', tableName: 'arrow_in' }

const rowOf = (id: number): Row => [id, `n-${id}`, new Decimal(BigInt(id * 101), 2)]

/** A RecordBatch message of `type` (rows from `rowOf`, or `[id]` for a one-column type). */
function message(ids: readonly number[], compression?: ArrowCompressionInfo, type: RowType = rowType) {
  const writer = new ArrowBatchWriter(type, compression === undefined ? {} : { compression })
  for (const id of ids) writer.addRow(type === rowType ? rowOf(id) : [id])
  return writer.finish()
}

async function setup(descriptor?: TableDescriptor, config: Record<string, string> = {}) {
  const { cluster, connection } = await startClient(cleanups, { config })
  const { table, tableId } = await createTable(
    connection,
    path,
    descriptor ?? TableDescriptor.builder().schema(schema).distributedBy(2).build(),
  )
  return { cluster, connection, table, tableId }
}

function batchesOf(cluster: FakeCluster, tableId: number, bucket: number, partitionId?: number) {
  return cluster.state.log(tableId, bucket, partitionId).batches.map(b => b.batch)
}

describe('AppendWriter Arrow appends', () => {
  it('sends each message as one log batch as it is, in order with rows, under the writer state', async () => {
    const { cluster, table, tableId } = await setup()
    const writer = table.newAppend().createWriter()
    const zstd = message([2, 3, 4], { type: 'ZSTD', level: 3 })
    const plain = [message([6]), message([7, 8])]
    writer.append(rowOf(1))
    await writer.appendArrowBatch(zstd, { bucket: 0 })
    writer.append(rowOf(5))
    await writer.appendArrowStream(writeArrowStream(rowType, plain), { bucket: 1 })
    await writer.flush()
    const zero = batchesOf(cluster, tableId, 0)
    const one = batchesOf(cluster, tableId, 1)
    const sameAs = (m: Uint8Array) => (b: (typeof zero)[number]) =>
      Buffer.from(b.arrowPayload()).equals(Buffer.from(m))
    expect(zero.filter(sameAs(zstd)).map(b => b.recordCount)).toEqual([3])
    expect(plain.map(m => one.filter(sameAs(m)).map(b => b.recordCount))).toEqual([[1], [2]])
    // One writer id and consecutive batch sequences per bucket, rows and Arrow batches alike.
    for (const own of [zero, one]) {
      expect(own.every(b => b.hasWriterId && b.writerId === zero[0].writerId)).toBe(true)
      expect(own.map(b => b.batchSequence)).toEqual(own.map((_, i) => i))
    }
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    scanner.subscribe(1, 0)
    const rows: Row[] = []
    while (rows.length < 8) for (const r of await scanner.poll(5000)) rows.push(r.row)
    expect(rows.sort((a, b) => (a[0] as number) - (b[0] as number))).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map(rowOf),
    )
    scanner.close()
  })

  it('stores batches with the table compression when asked (tableCompression)', async () => {
    const descriptor = TableDescriptor.builder()
      .schema(schema)
      .distributedBy(1)
      .property('table.log.arrow.compression.type', 'LZ4_FRAME')
      .build()
    const { cluster, table, tableId } = await setup(descriptor)
    const writer = table.newAppend().createWriter()
    const inputs = [
      message([1, 2]),
      message([3], { type: 'ZSTD', level: 3 }),
      message([4], { type: 'LZ4_FRAME' }),
    ]
    for (const input of inputs) await writer.appendArrowBatch(input, { tableCompression: true })
    await writer.appendArrowBatch(message([5]))
    const stored = batchesOf(cluster, tableId, 0)
    const codecs = stored.map(b => readRecordBatchInfo(b.arrowPayload()).compression)
    expect(codecs).toEqual(['LZ4_FRAME', 'LZ4_FRAME', 'LZ4_FRAME', 'NONE'])
    // A batch already in the table's codec is stored byte for byte.
    expect(Buffer.from(stored[2].arrowPayload()).equals(Buffer.from(inputs[2]))).toBe(true)
    const scanner = table.newScan().createLogScanner()
    scanner.subscribe(0, 0)
    const rows: Row[] = []
    while (rows.length < 5) for (const r of await scanner.poll(5000)) rows.push(r.row)
    expect(rows).toEqual([1, 2, 3, 4, 5].map(rowOf))
    scanner.close()
  })

  it('rejects data that does not fit the table with a typed error and writes nothing', async () => {
    const { cluster, table, tableId } = await setup()
    const writer = table.newAppend().createWriter()
    const oneColumn = DataTypes.ROW([{ name: 'id', type: DataTypes.INT(), fieldId: 0 }])
    const good = message([1, 2])
    const renamed = DataTypes.ROW(rowType.fields.map((f, i) => (i === 1 ? { ...f, name: 'label' } : f)))
    const wider = DataTypes.ROW(
      rowType.fields.map((f, i) => (i === 2 ? { ...f, type: DataTypes.DECIMAL(6, 2) } : f)),
    )
    const overflow = new ArrowBatchWriter(wider)
    overflow.addRow([1, 'x', new Decimal(123456n, 2)]) // 1234.56 does not fit DECIMAL(5, 2)
    const nullId = new ArrowBatchWriter(
      DataTypes.ROW(rowType.fields.map(f => ({ ...f, type: { ...f.type, nullable: true } }))),
    )
    nullId.addRow([null, 'x', null])
    const withTrailing = new Uint8Array(good.length + 8)
    withTrailing.set(good)
    const cases: [string, () => Promise<void>][] = [
      ['CORRUPT_RECORD_EXCEPTION', () => writer.appendArrowBatch(message([1], undefined, oneColumn))],
      ['CORRUPT_RECORD_EXCEPTION', () => writer.appendArrowBatch(good.subarray(0, good.length - 9))],
      ['INVALID_REQUEST', () => writer.appendArrowBatch(withTrailing)],
      ['INVALID_REQUEST', () => writer.appendArrowBatch(overflow.finish())],
      ['CORRUPT_RECORD_EXCEPTION', () => writer.appendArrowBatch(nullId.finish())],
      ['INVALID_REQUEST', () => writer.appendArrowBatch(good, { bucket: 2 })],
      ['CORRUPT_RECORD_EXCEPTION', () => writer.appendArrowStream(good)],
      [
        'CORRUPT_RECORD_EXCEPTION',
        () => writer.appendArrowBatch(message([1], { type: 'ZSTD' }), { maxUncompressedBytes: 8 }),
      ],
      [
        'INVALID_REQUEST',
        () => writer.appendArrowBatches([validateArrowBatch(message([1], undefined, oneColumn), oneColumn)]),
      ],
      ['INVALID_REQUEST', () => writer.appendArrowStream(writeArrowStream(renamed, [good]))],
      ['INVALID_REQUEST', () => writer.appendArrowStream(writeArrowStream(wider, [message([1])]))],
      // The first batch is fine, the second is not: neither is written.
      [
        'CORRUPT_RECORD_EXCEPTION',
        () => writer.appendArrowStream(writeArrowStream(rowType, [good, nullId.finish()])),
      ],
    ]
    for (const [code, append] of cases) {
      await expect(append(), code).rejects.toMatchObject({ errorName: code })
    }
    await writer.flush()
    expect(cluster.stats.produceRequests).toBe(0)
    expect(batchesOf(cluster, tableId, 0).length + batchesOf(cluster, tableId, 1).length).toBe(0)
    await writer.close()
    await expect(writer.appendArrowBatch(good)).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' })
  })

  it('takes an Arrow IPC stream written by apache-arrow', async () => {
    const plain = Schema.newBuilder()
      .column('id', DataTypes.INT())
      .column('name', DataTypes.STRING())
      .column('score', DataTypes.DOUBLE())
      .build()
    const { cluster, table, tableId } = await setup(
      TableDescriptor.builder().schema(plain).distributedBy(1).build(),
    )
    const arrow = new ArrowTable({
      id: vectorFromArray([1, 2, null], new Int32()),
      name: vectorFromArray(['a', null, 'ç'], new Utf8()),
      score: vectorFromArray([0.5, 1.5, -2], new Float64()),
    })
    await table.newAppend().createWriter().appendArrowStream(tableToIPC(arrow, 'stream'))
    expect(batchesOf(cluster, tableId, 0).length).toBe(1)
    expect(cluster.state.log(tableId, 0).rows(plain.rowType)).toEqual([
      [1, 'a', 0.5],
      [2, null, 1.5],
      [null, 'ç', -2],
    ])
  })

  it('lets the no-key bucket assigner place batches without a bucket', async () => {
    const config = { 'client.writer.bucket.no-key-assigner': 'ROUND_ROBIN' }
    const { cluster, table, tableId } = await setup(undefined, config)
    const writer = table.newAppend().createWriter()
    await Promise.all([1, 2, 3, 4].map(id => writer.appendArrowBatch(message([id, id]))))
    const counts = [0, 1].map(b => batchesOf(cluster, tableId, b).map(batch => batch.recordCount))
    expect(counts).toEqual([
      [2, 2],
      [2, 2],
    ])
  })

  it('routes by bucket key: whole when the rows share a bucket, row by row otherwise', async () => {
    const { cluster, connection, table, tableId } = await setup(
      TableDescriptor.builder().schema(schema).distributedBy(4, 'id').build(),
    )
    const writer = table.newAppend().createWriter()
    await writer.appendArrowBatch(message([7, 7, 7]))
    const whole = [0, 1, 2, 3].flatMap(b => batchesOf(cluster, tableId, b))
    expect(whole.map(b => b.recordCount)).toEqual([3])
    await writer.appendArrowBatch(message([1, 2, 3, 4, 5, 6, 7, 8]))
    // The same rows appended one by one to a second table land in the same buckets.
    const reference = await createTable(
      connection,
      { databaseName: 'fluss', tableName: 'by_rows' },
      TableDescriptor.builder().schema(schema).distributedBy(4, 'id').build(),
    )
    const rowWriter = reference.table.newAppend().createWriter()
    for (const id of [7, 7, 7, 1, 2, 3, 4, 5, 6, 7, 8]) rowWriter.append(rowOf(id))
    await rowWriter.close()
    const idsIn = (id: number, bucket: number) =>
      cluster.state
        .log(id, bucket)
        .rows(rowType)
        .map(r => r[0])
    for (const b of [0, 1, 2, 3]) expect(idsIn(tableId, b)).toEqual(idsIn(reference.tableId, b))
    expect([0, 1, 2, 3].filter(b => idsIn(tableId, b).length > 0).length).toBeGreaterThan(1)
  })

  it('appends the rows of a partitioned table row by row into their partitions', async () => {
    const partitioned = Schema.newBuilder()
      .column('id', notNull(DataTypes.INT()))
      .column('dt', notNull(DataTypes.STRING()))
      .build()
    const { cluster, connection, table, tableId } = await setup(
      TableDescriptor.builder().schema(partitioned).partitionedBy('dt').distributedBy(1).build(),
    )
    await connection.getAdmin().createPartition(path, { dt: 'a' })
    await connection.getAdmin().createPartition(path, { dt: 'b' })
    const writer = new ArrowBatchWriter(partitioned.rowType)
    for (const [id, dt] of [
      [1, 'a'],
      [2, 'b'],
      [3, 'a'],
    ] as const)
      writer.addRow([id, dt])
    const tableWriter = table.newAppend().createWriter()
    await expect(tableWriter.appendArrowBatch(writer.finish(), { bucket: 0 })).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
    })
    await tableWriter.appendArrowBatch(writer.finish())
    const partitions = await connection.getAdmin().listPartitionInfos(path)
    const idsOf = (name: string) => {
      const id = partitions.find(p => p.partitionName === name)?.partitionId
      return cluster.state
        .log(tableId, 0, id)
        .rows(partitioned.rowType)
        .map(r => r[0])
    }
    expect(idsOf('a')).toEqual([1, 3])
    expect(idsOf('b')).toEqual([2])
  })
})
