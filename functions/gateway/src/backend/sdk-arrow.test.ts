import { type ValidatedArrowBatch, validateArrowBatch } from '@sluice/client'
import { FakeCluster } from '@sluice/client/testing'
import { ArrowBatchWriter, readRecordBatchInfo, writeArrowStream } from '@sluice/core/arrow'
import { Configuration } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes, notNull, type RowType } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import type { BackendContext } from './gateway-backend.js'
import { SdkBackend } from './sdk-backend.js'
import { writeArrowBatches } from './sdk-write.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

const schema = Schema.newBuilder()
  .column('id', notNull(DataTypes.INT()))
  .column('msg', DataTypes.STRING())
  .build()
const path = { databaseName: 'fluss', tableName: 'events' }
const ctx: BackendContext = {
  signal: new AbortController().signal,
  principal: { name: 'test', via: 'trust' },
}
const limits = { maxRows: 100, maxUncompressedBytes: 1 << 20, maxJsonDepth: 64 }

function batch(ids: readonly number[], rowType: RowType = schema.rowType): Uint8Array {
  const writer = new ArrowBatchWriter(rowType)
  for (const id of ids) writer.addRow([id, `m${id}`])
  return writer.finish()
}

async function setup(encoderThreads = 0) {
  const cluster = await FakeCluster.start()
  cleanups.push(() => cluster.close())
  const backend = await SdkBackend.connect(
    Configuration.load({
      'bootstrap.servers': cluster.bootstrapServers,
      'gateway.rest.write.encoder-threads': String(encoderThreads),
    }),
  )
  cleanups.push(() => backend.close())
  await backend.connection
    .getAdmin()
    .createTable(path, TableDescriptor.builder().schema(schema).distributedBy(1).build())
  const info = await backend.connection.getAdmin().getTableInfo(path)
  return { cluster, backend, info }
}

const arrowBody = (bytes: Uint8Array) => ({ format: 'arrow' as const, bytes })
const jsonBody = (value: unknown) => ({ format: 'json' as const, bytes: Buffer.from(JSON.stringify(value)) })

describe.each([0, 1])('SdkBackend body appends, %i encoder threads', threads => {
  it('appends an exactly matching Arrow stream as log batches, and declines other streams', async () => {
    const { cluster, backend, info } = await setup(threads)
    const stream = writeArrowStream(schema.rowType, [batch([1, 2]), batch([3])])
    const prepared = await backend.prepareBodyAppend(ctx, info, arrowBody(stream), limits)
    expect(prepared?.rowCount).toBe(3)
    expect(cluster.stats.produceRequests).toBe(0)
    expect(await prepared?.write(ctx)).toEqual({ failures: [] })
    const stored = cluster.state.log(info.tableId, 0).batches.map(b => b.batch)
    expect(stored.map(b => b.recordCount)).toEqual([2, 1])
    // The body's batches were uncompressed: they are stored with the table's default ZSTD.
    expect(stored.map(b => readRecordBatchInfo(b.arrowPayload()).compression)).toEqual(['ZSTD', 'ZSTD'])
    expect(cluster.state.log(info.tableId, 0).rows(info.rowType)).toEqual([
      [1, 'm1'],
      [2, 'm2'],
      [3, 'm3'],
    ])
    const renamed = DataTypes.ROW(schema.rowType.fields.map((f, i) => (i === 1 ? { ...f, name: 'text' } : f)))
    const declined = [
      writeArrowStream(renamed, [batch([1], renamed)]), // fields by other names: the row path maps them
      stream.subarray(0, stream.length - 20), // truncated: the row path reports it
      writeArrowStream(schema.rowType, []), // no rows
    ]
    for (const body of declined)
      expect(await backend.prepareBodyAppend(ctx, info, arrowBody(body), limits)).toBeUndefined()
    expect(
      await backend.prepareBodyAppend(ctx, info, arrowBody(stream), { ...limits, maxRows: 2 }),
    ).toBeUndefined()
  })

  it('encodes JSON rows into compressed log batches, and declines bodies it cannot take', async () => {
    const { cluster, backend, info } = await setup(threads)
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: i, msg: `m${i}` }))
    const prepared = await backend.prepareBodyAppend(ctx, info, jsonBody({ rows }), limits)
    expect(prepared?.rowCount).toBe(40)
    expect(cluster.stats.produceRequests).toBe(0)
    expect(await prepared?.write(ctx)).toEqual({ failures: [] })
    const log = cluster.state.log(info.tableId, 0)
    expect(log.batches.map(b => readRecordBatchInfo(b.batch.arrowPayload()).compression)).toEqual(['ZSTD'])
    expect(log.rows(info.rowType)).toEqual(rows.map(r => [r.id, r.msg]))
    const declined = [
      { rows: [{ id: 'one', msg: 'x' }] }, // a wrong type: the general path words the error
      { rows: [{ msg: 'no id' }] }, // a NOT NULL column missing
      { rows: [{ id: 1, extra: true }] }, // no such column
      { rows: [] },
      { rows: Array.from({ length: 101 }, (_, i) => ({ id: i })) }, // above maxRows
    ]
    for (const body of declined)
      expect(await backend.prepareBodyAppend(ctx, info, jsonBody(body), limits)).toBeUndefined()
    expect(log.batches).toHaveLength(1)
  })
})

describe('writeArrowBatches', () => {
  const batches = [
    validateArrowBatch(batch([1, 2]), schema.rowType),
    validateArrowBatch(batch([3]), schema.rowType),
  ]

  it('reports every row of a failed batch by its index in the stream', async () => {
    const sink = {
      appendArrowBatches: async (b: readonly ValidatedArrowBatch[]) => {
        if (b[0].recordCount === 1) throw new FlussError('NOT_LEADER_OR_FOLLOWER', 'moved')
      },
    }
    const result = await writeArrowBatches(sink, batches, new AbortController().signal)
    expect(result.failures.map(f => [f.index, (f.error as FlussError).errorName])).toEqual([
      [2, 'NOT_LEADER_OR_FOLLOWER'],
    ])
  })

  it('fails every row once the deadline has passed, and rows the writer refuses', async () => {
    const controller = new AbortController()
    controller.abort()
    const sink = { appendArrowBatches: async () => {} }
    const late = await writeArrowBatches(sink, batches, controller.signal)
    expect(late.failures.map(f => (f.error as FlussError).errorName)).toEqual([
      'REQUEST_TIME_OUT',
      'REQUEST_TIME_OUT',
      'REQUEST_TIME_OUT',
    ])
    const refusing = {
      appendArrowBatches: () => {
        throw new FlussError('INVALID_REQUEST', 'closed')
      },
    }
    const refused = await writeArrowBatches(refusing, batches, new AbortController().signal)
    expect(refused.failures.map(f => f.index)).toEqual([0, 1, 2])
  })
})
