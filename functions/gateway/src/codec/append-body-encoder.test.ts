import {
  ArrowBatchReader,
  ArrowBatchWriter,
  initArrowCodecs,
  readRecordBatchInfo,
  writeArrowStream,
} from '@sluice/core/arrow'
import type { Row } from '@sluice/core/row'
import { DataTypes, notNull } from '@sluice/core/types'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { AppendBodyEncoder } from './append-body-encoder.js'
import type { AppendBodyRequest } from './append-body-encoding.js'

const rowType = DataTypes.ROW([
  { name: 'id', type: notNull(DataTypes.INT()), fieldId: 0 },
  { name: 'msg', type: DataTypes.STRING(), fieldId: 1 },
  { name: 'price', type: DataTypes.DECIMAL(10, 2), fieldId: 2 },
])

const encoders: AppendBodyEncoder[] = []
afterEach(async () => {
  for (const e of encoders.splice(0)) await e.close()
})
beforeAll(() => initArrowCodecs())

function encoder(threads: number): AppendBodyEncoder {
  const e = new AppendBodyEncoder(threads)
  encoders.push(e)
  return e
}

function jsonRequest(ids: readonly number[], batchBytes = 1 << 20): AppendBodyRequest {
  const rows = ids.map(id => ({ id, msg: `message ${id}`, price: `${id}.25` }))
  return {
    format: 'json',
    bytes: Buffer.from(JSON.stringify({ rows })),
    tableKey: '7:1',
    rowType,
    compression: { type: 'ZSTD', level: 3 },
    maxRows: 10_000,
    maxJsonDepth: 64,
    maxUncompressedBytes: 1 << 24,
    batchBytes,
  }
}

function rowsOf(messages: readonly Uint8Array[]): Row[] {
  return messages.flatMap(m => {
    const reader = new ArrowBatchReader(m, rowType)
    return Array.from({ length: reader.recordCount }, (_, r) => reader.getRow(r))
  })
}

const expectedRows = (ids: readonly number[]) =>
  ids.map(id => [id, `message ${id}`, expect.objectContaining({ scale: 2 })])

describe('AppendBodyEncoder', () => {
  it('encodes the same bytes in a worker thread as on the event loop', async () => {
    const ids = Array.from({ length: 300 }, (_, i) => i)
    const inline = await encoder(0).encode(jsonRequest(ids))
    const offloaded = encoder(1)
    expect(offloaded.offloaded).toBe(true)
    const worker = await offloaded.encode(jsonRequest(ids))
    expect(inline.kind).toBe('encoded')
    expect(worker).toEqual(inline)
    if (worker.kind !== 'encoded') return
    expect(worker.rowCount).toBe(300)
    expect(worker.messages.map(m => readRecordBatchInfo(m).compression)).toEqual(['ZSTD'])
    expect(rowsOf(worker.messages)).toEqual(expectedRows(ids))
  })

  it('splits the rows into log batches of about batchBytes, in order', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i)
    const result = await encoder(1).encode(jsonRequest(ids, 4096))
    if (result.kind !== 'encoded') throw new Error('declined')
    expect(result.messages.length).toBeGreaterThan(5)
    expect(rowsOf(result.messages)).toEqual(expectedRows(ids))
  })

  it('recompresses an Arrow stream of the row type, keeping its rows', async () => {
    const writer = new ArrowBatchWriter(rowType)
    for (let id = 0; id < 50; id++) writer.addRow([id, `message ${id}`, null])
    const stream = writeArrowStream(rowType, [writer.finish()])
    const result = await encoder(1).encode({ ...jsonRequest([]), format: 'arrow', bytes: stream })
    if (result.kind !== 'encoded') throw new Error('declined')
    expect(result.messages.map(m => readRecordBatchInfo(m).compression)).toEqual(['ZSTD'])
    expect(rowsOf(result.messages).map(r => r[0])).toEqual(Array.from({ length: 50 }, (_, i) => i))
  })

  it('serves concurrent requests on several workers and keeps each answer with its request', async () => {
    const e = encoder(2)
    const requests = Array.from({ length: 20 }, (_, k) =>
      Array.from({ length: 50 + k }, (_, i) => k * 1000 + i),
    )
    const results = await Promise.all(requests.map(ids => e.encode(jsonRequest(ids))))
    results.forEach((result, k) => {
      if (result.kind !== 'encoded') throw new Error(`request ${k} declined`)
      expect(rowsOf(result.messages)).toEqual(expectedRows(requests[k]))
    })
  })

  it('declines bodies it cannot take, and work in progress when it closes; then runs on the event loop', async () => {
    const e = encoder(1)
    const bad = { ...jsonRequest([1]), bytes: Buffer.from('{"rows":[{"id":"x"}]}') }
    expect(await e.encode(bad)).toEqual({ kind: 'declined' })
    // A request that cannot be sent to the worker is declined too, and the worker still serves.
    const uncloneable = { ...jsonRequest([1]), rowType: { ...rowType, check: () => true } }
    expect(await e.encode(uncloneable)).toEqual({ kind: 'declined' })
    expect((await e.encode(jsonRequest([1]))).kind).toBe('encoded')
    const big = Array.from({ length: 5000 }, (_, i) => i)
    const inFlight = e.encode(jsonRequest(big))
    await e.close()
    expect(await inFlight).toEqual({ kind: 'declined' })
    expect(e.offloaded).toBe(false)
    const after = await e.encode(jsonRequest([1, 2]))
    expect(after.kind).toBe('encoded')
  })
})
