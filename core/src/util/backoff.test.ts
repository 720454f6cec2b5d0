import { describe, expect, it } from 'vitest'
import { exponentialBackoffMs, halfJitteredMs } from './backoff.js'
import { sleep } from './sleep.js'

describe('exponentialBackoffMs', () => {
  it('doubles from the initial delay per attempt up to the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map(a => exponentialBackoffMs(a, 50, 1000))).toEqual([
      50, 100, 200, 400, 800, 1000,
    ])
  })

  it('is uncapped without a maximum and stays finite for any attempt', () => {
    expect(exponentialBackoffMs(4, 200)).toBe(1600)
    expect(exponentialBackoffMs(0, 50, 1000)).toBe(50)
    expect(Number.isFinite(exponentialBackoffMs(5000, 1))).toBe(true)
    expect(exponentialBackoffMs(5000, 0)).toBe(0)
  })
})

describe('halfJitteredMs', () => {
  it('lies between half of the delay and all of it', () => {
    expect(halfJitteredMs(100, () => 0)).toBe(50)
    expect(halfJitteredMs(100, () => 1)).toBe(100)
    expect(halfJitteredMs(101, () => 0.5)).toBe(76)
  })
})

describe('sleep', () => {
  it('resolves after the delay, also when unreferenced', async () => {
    const start = Date.now()
    await sleep(20)
    await sleep(20, { unref: true })
    expect(Date.now() - start).toBeGreaterThanOrEqual(35)
  })
})
