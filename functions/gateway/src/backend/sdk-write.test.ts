import type { Row } from '@sluice/core'
import { FlussError } from '@sluice/core/errors'
import { describe, expect, it } from 'vitest'
import { type RowSink, writeRows } from './sdk-write.js'

/** A writer whose buffer holds `capacity` rows; rows fail when `fail(row)` says so. */
function testingSink(capacity: number, fail: (row: Row) => boolean = () => false) {
  const pending: { row: Row; resolve: () => void; reject: (e: unknown) => void }[] = []
  const written: Row[] = []
  const drain = () => {
    for (const p of pending.splice(0)) {
      if (fail(p.row)) p.reject(new FlussError('NOT_LEADER_OR_FOLLOWER', `row ${p.row[0]}`))
      else {
        written.push(p.row)
        p.resolve()
      }
    }
  }
  const sink: RowSink = {
    write: row => {
      if (pending.length >= capacity) {
        setTimeout(drain, 1)
        throw new FlussError('RESOURCE_EXHAUSTED', 'buffer full')
      }
      return new Promise<void>((resolve, reject) => pending.push({ row, resolve, reject }))
    },
    flush: async () => drain(),
  }
  return { sink, written }
}

describe('writeRows', () => {
  it('reports each row, waiting for room when the buffer is full', async () => {
    const { sink, written } = testingSink(2, row => row[0] === 3)
    const rows = [0, 1, 2, 3, 4].map(i => [i])
    const result = await writeRows(sink, rows, new AbortController().signal)
    expect(result.failures.map(f => f.index)).toEqual([3])
    expect((result.failures[0].error as FlussError).errorName).toBe('NOT_LEADER_OR_FOLLOWER')
    expect(written.map(r => r[0])).toEqual([0, 1, 2, 4])
  })

  it('fails rows left when the deadline has passed, and rows the writer refuses', async () => {
    const controller = new AbortController()
    controller.abort()
    const { sink } = testingSink(10)
    const result = await writeRows(sink, [[1], [2]], controller.signal)
    expect(result.failures.map(f => (f.error as FlussError).errorName)).toEqual([
      'REQUEST_TIME_OUT',
      'REQUEST_TIME_OUT',
    ])
    const refusing: RowSink = {
      write: () => {
        throw new FlussError('INVALID_REQUEST', 'closed')
      },
      flush: async () => {},
    }
    expect((await writeRows(refusing, [[1]], new AbortController().signal)).failures).toHaveLength(1)
  })
})
