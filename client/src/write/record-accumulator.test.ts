import { ArrowBatchReader, NO_COMPRESSION } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { LogRecordBatch } from '@sluice/core/record'
import type { Row } from '@sluice/core/row'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { ArrowLogBatchFormat } from './batch-format.js'
import { type AccumulatorOptions, RecordAccumulator } from './record-accumulator.js'
import { WriterMemory } from './writer-memory.js'

const rowType = DataTypes.ROW([
  { name: 'id', type: DataTypes.INT(), fieldId: 0 },
  { name: 'text', type: DataTypes.STRING(), fieldId: 1 },
])

function accumulator(overrides: Partial<AccumulatorOptions<Row>> = {}, memoryBytes = 1 << 20) {
  const options = {
    format: new ArrowLogBatchFormat(rowType, NO_COMPRESSION),
    batchSizeBytes: 1 << 20,
    batchTimeoutMs: 100,
    ...overrides,
  }
  const memory = new WriterMemory(memoryBytes)
  return { acc: new RecordAccumulator(options, memory), memory }
}

describe('RecordAccumulator', () => {
  it('keeps one open batch per bucket and encodes its rows in order', () => {
    const { acc } = accumulator()
    const first = acc.append([1, 'a'], undefined, 0, 1000)
    const second = acc.append([2, 'b'], undefined, 0, 1001)
    const other = acc.append([3, 'c'], undefined, 1, 1002)
    expect(first.newBatch).toBe(true)
    expect(second.newBatch).toBe(false)
    expect(second.batch).toBe(first.batch)
    expect(second.index).toBe(1)
    expect(other.batch).not.toBe(first.batch)

    const queue = [...acc.queues()].find(q => q.bucket === 0)
    if (queue === undefined) throw new Error('no queue for bucket 0')
    const batch = acc.takeHead(queue)
    const bytes = batch.bytes(7)
    const parsed = new LogRecordBatch(bytes)
    parsed.validate()
    expect(parsed.schemaId).toBe(7)
    expect(parsed.appendOnly).toBe(true)
    expect(parsed.recordCount).toBe(2)
    expect(parsed.writerId).toBe(-1)
    expect(new ArrowBatchReader(parsed.arrowPayload(), rowType).toRows()).toEqual([
      [1, 'a'],
      [2, 'b'],
    ])
  })

  it('closes a batch once its estimated size reaches the batch size', () => {
    const { acc } = accumulator({ batchSizeBytes: 1024 })
    const outcomes = Array.from({ length: 40 }, (_, i) => acc.append([i, 'x'.repeat(40)], undefined, 0, 0))
    const fullAt = outcomes.findIndex(o => o.batchFull)
    expect(fullAt).toBeGreaterThan(0)
    expect(outcomes[fullAt + 1].newBatch).toBe(true)
    const full = outcomes[fullAt].batch
    expect(full.isOpen).toBe(false)
    expect(full.recordCount).toBe(fullAt + 1)
    // The closed batch is ready at once, however young.
    const { ready } = acc.ready(0)
    expect(ready.map(q => q.batches[0])).toEqual([full])
  })

  it('makes an open batch ready after the batch timeout, or at once when flushed', () => {
    const { acc } = accumulator({ batchTimeoutMs: 100 })
    acc.append([1, 'a'], undefined, 0, 1000)
    expect(acc.ready(1050)).toEqual({ ready: [], nextCheckMs: 1100 })
    expect(acc.ready(1100).ready).toHaveLength(1)
    acc.beginFlush()
    expect(acc.ready(1001).ready).toHaveLength(1)
    // Rows after the flush started open no flushed batch of their own.
    acc.append([2, 'b'], undefined, 1, 1001)
    expect(acc.ready(1001).ready.map(q => q.bucket)).toEqual([0])
  })

  it('accounts buffered bytes against the shared memory and releases them when batches finish', () => {
    const { acc, memory } = accumulator()
    acc.append([1, 'hello'], undefined, 0, 0)
    const open = memory.usedBytes
    expect(open).toBeGreaterThan(0)
    acc.append([2, 'world'], undefined, 0, 0)
    expect(memory.usedBytes).toBeGreaterThan(open)
    const queue = [...acc.queues()][0]
    const batch = acc.takeHead(queue)
    expect(memory.usedBytes).toBe(batch.sizeInBytes())
    batch.bytes(1)
    acc.account(batch)
    expect(memory.usedBytes).toBe(batch.sizeInBytes())
    acc.complete(batch, 0, undefined)
    expect(memory.usedBytes).toBe(0)
  })

  it('treats every open batch as ready while memory is exhausted', () => {
    const { acc, memory } = accumulator({ batchTimeoutMs: 60_000 }, 64)
    acc.append([1, 'a'.repeat(100)], undefined, 0, 0)
    expect(memory.isFull).toBe(true)
    expect(acc.ready(1).ready).toHaveLength(1)
  })

  it('resolves a flush when every covered batch is done, and rejects with the first failure once', async () => {
    const { acc } = accumulator()
    acc.append([1, 'a'], undefined, 0, 0)
    acc.append([2, 'b'], undefined, 1, 0)
    const upTo = acc.beginFlush()
    const flushed = acc.flushed(upTo)
    const [q0, q1] = [...acc.queues()]
    const b0 = acc.takeHead(q0)
    const b1 = acc.takeHead(q1)
    let settled = false
    flushed.then(
      () => (settled = true),
      () => (settled = true),
    )
    acc.complete(b0, 0, undefined)
    await Promise.resolve()
    expect(settled).toBe(false)
    acc.fail(b1, new FlussError('RECORD_TOO_LARGE_EXCEPTION', 'too big'))
    await expect(flushed).rejects.toMatchObject({ code: 13 })
    // The failure was reported; the next flush covers nothing new and succeeds.
    await expect(acc.flushed(acc.beginFlush())).resolves.toBeUndefined()
  })

  it('re-enqueues retried batches in sequence order ahead of new batches', () => {
    const { acc } = accumulator({ batchSizeBytes: 1 })
    for (let i = 0; i < 3; i++) acc.append([i, 'x'], undefined, 0, 0)
    const queue = [...acc.queues()][0]
    const [b0, b1, b2] = [acc.takeHead(queue), acc.takeHead(queue), acc.takeHead(queue)]
    b0.batchSequence = 0
    b1.batchSequence = 1
    acc.append([9, 'new'], undefined, 0, 0)
    acc.reEnqueue(queue, b1, 50)
    acc.reEnqueue(queue, b0, 50)
    expect(queue.batches.slice(0, 2)).toEqual([b0, b1])
    expect(queue.batches[2].hasSequence).toBe(false)
    expect(acc.ready(10).ready).toEqual([])
    expect(acc.ready(50).ready).toEqual([queue])
    expect(b2.isOpen).toBe(false)
  })
})
