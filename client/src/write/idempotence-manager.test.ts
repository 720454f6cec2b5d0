import { NO_COMPRESSION } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import { DataTypes } from '@sluice/core/types'
import { describe, expect, it } from 'vitest'
import { ArrowLogBatchFormat } from './batch-format.js'
import { IdempotenceManager } from './idempotence-manager.js'
import type { BucketQueue } from './record-accumulator.js'
import { WriteBatch } from './write-batch.js'

const rowType = DataTypes.ROW([{ name: 'id', type: DataTypes.INT(), fieldId: 0 }])
let nextId = 1
const format = new ArrowLogBatchFormat(rowType, NO_COMPRESSION)
const batch = () => new WriteBatch(nextId++, undefined, 0, format, 0)
const queue = (): BucketQueue => ({ key: '0', partitionName: undefined, bucket: 0, batches: [], onWire: 0 })
const error = (
  name:
    | 'NOT_LEADER_OR_FOLLOWER'
    | 'OUT_OF_ORDER_SEQUENCE_EXCEPTION'
    | 'UNKNOWN_WRITER_ID_EXCEPTION'
    | 'RECORD_TOO_LARGE_EXCEPTION'
    | 'DUPLICATE_SEQUENCE_EXCEPTION',
) => new FlussError(name)

function manager(maxInflight = 5) {
  const m = new IdempotenceManager(true, maxInflight)
  m.setWriterId(7)
  return m
}

describe('IdempotenceManager', () => {
  it('numbers batches from 0 per bucket and caps unacknowledged batches', () => {
    const m = manager(2)
    const q = queue()
    const [b0, b1, b2] = [batch(), batch(), batch()]
    expect(m.canSend(q, b0)).toBe(true)
    m.prepareSend(q, b0)
    m.prepareSend(q, b1)
    expect([b0, b1].map(b => [b.writerId, b.batchSequence])).toEqual([
      [7, 0],
      [7, 1],
    ])
    expect(m.canSend(q, b2)).toBe(false)
    m.onSuccess(q, b0)
    expect(m.canSend(q, b2)).toBe(true)
    m.prepareSend(q, b2)
    expect(m.unackedSequences(q)).toEqual([1, 2])
  })

  it('keeps the sequence of a batch across retries and sends a retry only when it is the oldest', () => {
    const m = manager()
    const q = queue()
    const [b0, b1] = [batch(), batch()]
    m.prepareSend(q, b0)
    m.prepareSend(q, b1)
    expect(m.onError(q, b1, error('NOT_LEADER_OR_FOLLOWER'), 3)).toBe('retry')
    expect(m.canSend(q, b1)).toBe(false)
    expect(m.onError(q, b0, error('NOT_LEADER_OR_FOLLOWER'), 3)).toBe('retry')
    m.prepareSend(q, b0)
    expect(b0.batchSequence).toBe(0)
    expect(m.canSend(q, b0)).toBe(true)
    m.onSuccess(q, b0)
    expect(m.canSend(q, b1)).toBe(true)
  })

  it('retries OUT_OF_ORDER for a batch that is not next, fails it when it is', () => {
    const m = manager()
    const q = queue()
    const [b0, b1] = [batch(), batch()]
    m.prepareSend(q, b0)
    m.prepareSend(q, b1)
    expect(m.onError(q, b1, error('OUT_OF_ORDER_SEQUENCE_EXCEPTION'), 3)).toBe('retry')
    expect(m.onError(q, b0, error('OUT_OF_ORDER_SEQUENCE_EXCEPTION'), 3)).toBe('fail')
    expect(m.hasWriterId).toBe(false)
  })

  it('fences a bucket after a fatal failure: later batches of the old writer id fail, new ones restart at 0', () => {
    const m = manager()
    const q = queue()
    const [b0, b1, b2] = [batch(), batch(), batch()]
    m.prepareSend(q, b0)
    m.prepareSend(q, b1)
    expect(m.onError(q, b0, error('RECORD_TOO_LARGE_EXCEPTION'), 3)).toBe('fail')
    m.onFailure(q, b0)
    expect(m.isFenced(q, b1)).toBe(true)
    expect(m.onError(q, b1, error('NOT_LEADER_OR_FOLLOWER'), 3)).toBe('fail')
    m.onFailure(q, b1)
    expect(m.canSend(q, b2)).toBe(false)
    m.setWriterId(8)
    expect(m.canSend(q, b2)).toBe(true)
    m.prepareSend(q, b2)
    expect([b2.writerId, b2.batchSequence]).toEqual([8, 0])
  })

  it('waits for old-writer batches before starting a bucket under a new writer id', () => {
    const m = manager()
    const q = queue()
    const [b0, b1] = [batch(), batch()]
    m.prepareSend(q, b0)
    m.setWriterId(9)
    expect(m.canSend(q, b1)).toBe(false)
    m.onSuccess(q, b0)
    expect(m.canSend(q, b1)).toBe(true)
  })

  it('fails UNKNOWN_WRITER_ID and exhausted retries, and takes DUPLICATE_SEQUENCE as success', () => {
    const m = manager()
    const q = queue()
    const b0 = batch()
    m.prepareSend(q, b0)
    expect(m.onError(q, b0, error('DUPLICATE_SEQUENCE_EXCEPTION'), 0)).toBe('success')
    expect(m.onError(q, b0, error('NOT_LEADER_OR_FOLLOWER'), 0)).toBe('fail')
    const other = manager()
    const b1 = batch()
    other.prepareSend(q, b1)
    expect(other.onError(q, b1, error('UNKNOWN_WRITER_ID_EXCEPTION'), 5)).toBe('fail')
  })

  it('without idempotence, limits batches on the wire and retries only retriable errors', () => {
    const m = new IdempotenceManager(false, 2)
    const q = queue()
    const b = batch()
    expect(m.canSend(q, b)).toBe(true)
    q.onWire = 2
    expect(m.canSend(q, b)).toBe(false)
    m.prepareSend(q, b)
    expect(b.batchSequence).toBe(-1)
    expect(m.onError(q, b, error('NOT_LEADER_OR_FOLLOWER'), 1)).toBe('retry')
    expect(m.onError(q, b, error('RECORD_TOO_LARGE_EXCEPTION'), 1)).toBe('fail')
  })
})
