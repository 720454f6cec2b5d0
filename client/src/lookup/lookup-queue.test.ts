import { tableBucket } from '@sluice/core/metadata'
import { describe, expect, it } from 'vitest'
import { type LookupQuery, LookupQueue } from './lookup-queue.js'

let nextKey = 0
function query(queuedAtMs: number): LookupQuery {
  return {
    kind: 'LOOKUP',
    tablePath: { databaseName: 'fluss', tableName: 't' },
    bucket: tableBucket(1, 0),
    key: Buffer.from([nextKey++]),
    resolve: () => {},
    reject: () => {},
    queuedAtMs,
    retries: 0,
    retryAtMs: 0,
  }
}

describe('LookupQueue', () => {
  it('holds new queries for the batching window, then drains them together', () => {
    const queue = new LookupQueue(100, 10, 50)
    const a = query(1000)
    const b = query(1020)
    queue.offer(a)
    queue.offer(b)
    expect(queue.drain(1030)).toEqual({ queries: [], nextCheckMs: 1050 })
    expect(queue.drain(1050).queries).toEqual([a, b])
    expect(queue.size).toBe(0)
    expect(queue.drain(1060).nextCheckMs).toBe(Number.POSITIVE_INFINITY)
  })

  it('drains at once when a full batch waits, and never more than max-batch-size', () => {
    const queue = new LookupQueue(100, 3, 1000)
    const queries = Array.from({ length: 7 }, () => query(0))
    for (const q of queries) queue.offer(q)
    expect(queue.drain(1).queries).toEqual(queries.slice(0, 3))
    expect(queue.drain(1).queries).toEqual(queries.slice(3, 6))
    const rest = queue.drain(1)
    expect(rest.queries).toEqual([])
    expect(rest.nextCheckMs).toBe(1000)
  })

  it('refuses new queries beyond its capacity but always takes retries back', () => {
    const queue = new LookupQueue(2, 10, 0)
    expect(queue.offer(query(0))).toBe(true)
    expect(queue.offer(query(0))).toBe(true)
    expect(queue.offer(query(0))).toBe(false)
    const retried = query(0)
    retried.retryAtMs = 500
    queue.retry(retried)
    expect(queue.size).toBe(3)
  })

  it('sends a retried query only after its backoff, ahead of new ones', () => {
    const queue = new LookupQueue(10, 2, 100)
    const retried = query(0)
    retried.retryAtMs = 300
    queue.retry(retried)
    const fresh = query(250)
    queue.offer(fresh)
    expect(queue.drain(200)).toEqual({ queries: [], nextCheckMs: 300 })
    expect(queue.drain(300).queries).toEqual([retried, fresh])
  })

  it('removes queries by filter and puts drained ones back first', () => {
    const queue = new LookupQueue(10, 10, 0)
    const a = query(0)
    const b = query(0)
    queue.offer(a)
    queue.offer(b)
    expect(queue.removeAll(q => q === b)).toEqual([b])
    const drained = queue.drain(0).queries
    queue.putBack(drained)
    expect(queue.drain(0).queries).toEqual([a])
  })
})
