import type { Clock } from '@sluice/core/util'
import { describe, expect, it } from 'vitest'
import { MemoryIdempotencyStore } from './idempotency-store.js'
import { acceptsJson, bodyFormat } from './media.js'
import { ConcurrencyLimiter, TokenBucket } from './rate-limiter.js'

function testingClock(start = 0): Clock & { advance(ms: number): void } {
  let now = start
  return { nowMs: () => now, advance: ms => (now += ms) }
}

const entry = { fingerprint: 'f', state: 'done' as const, acknowledgedRows: [] }

describe('TokenBucket', () => {
  it('allows a second of requests, refills over time and says how long to wait', () => {
    const clock = testingClock()
    const bucket = new TokenBucket(2, clock)
    expect([bucket.tryTake(1), bucket.tryTake(1), bucket.tryTake(1)]).toEqual([0, 0, 1])
    clock.advance(500)
    expect(bucket.tryTake(1)).toBe(0)
  })

  it('lets a request larger than the bucket through when full, leaving it in debt', () => {
    const clock = testingClock()
    const bucket = new TokenBucket(100, clock)
    expect(bucket.tryTake(250)).toBe(0)
    expect(bucket.tryTake(1)).toBe(2)
    clock.advance(2600)
    expect(bucket.tryTake(1)).toBe(0)
  })
})

describe('ConcurrencyLimiter', () => {
  it('admits at most max holders', () => {
    const l = new ConcurrencyLimiter(1)
    expect([l.tryAcquire(), l.tryAcquire()]).toEqual([true, false])
    l.release()
    expect(l.tryAcquire()).toBe(true)
  })
})

describe('MemoryIdempotencyStore', () => {
  it('expires entries after the TTL and evicts the oldest when full', () => {
    const clock = testingClock()
    const store = new MemoryIdempotencyStore(2, 1000, clock)
    store.put('a', entry)
    store.put('b', entry)
    store.put('c', entry)
    expect([store.get('a'), store.get('b'), store.get('c')].map(e => e !== undefined)).toEqual([
      false,
      true,
      true,
    ])
    clock.advance(1000)
    expect(store.get('b')).toBeUndefined()
    store.put('d', entry)
    expect(store.size).toBe(1)
    expect(store.get('d')).toEqual(entry)
  })
})

describe('media types', () => {
  it('reads JSON and Arrow content types', () => {
    expect(bodyFormat('application/json', false)).toBe('json')
    expect(bodyFormat('Application/JSON; charset="utf-8"', false)).toBe('json')
    expect(bodyFormat('application/merge-patch+json', false)).toBe('json')
    expect(bodyFormat('application/vnd.apache.arrow.stream', true)).toBe('arrow')
    expect(() => bodyFormat('application/vnd.apache.arrow.stream', false)).toThrow(/not accepted/)
    expect(() => bodyFormat(undefined, false)).toThrow(/Content-Type header is required/)
    expect(() => bodyFormat('application/json; charset=utf-16', false)).toThrow(/UTF-8/)
  })

  it('reads Accept headers', () => {
    expect(acceptsJson(undefined)).toBe(true)
    expect(acceptsJson('*/*')).toBe(true)
    expect(acceptsJson('text/html, application/json;q=0.1')).toBe(true)
    expect(acceptsJson('text/html')).toBe(false)
    expect(acceptsJson('application/*;q=0')).toBe(false)
  })
})
