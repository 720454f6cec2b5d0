import { describe, expect, it } from 'vitest'
import { percentileOf, runConcurrent } from './concurrent.js'
import { parseRedisCsv, redisBenchmarkKey } from './redis.js'

describe('parseRedisCsv', () => {
  it('reads throughput, p50 and p99 of the GET line of redis-benchmark 7 output', () => {
    const csv = [
      '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"',
      '"GET","84745.77","0.326","0.080","0.287","0.639","0.879","2.359"',
      '',
    ].join('\n')
    expect(parseRedisCsv(csv)).toEqual({ opsPerSec: 84745.77, p50Ms: 0.287, p99Ms: 0.879 })
  })

  it('refuses output without a GET line or with a missing column', () => {
    expect(() => parseRedisCsv('"test","rps"\n"SET","1000"')).toThrow(/no GET line/)
    expect(() => parseRedisCsv('"test","rps"\n"GET","1000"')).toThrow(/no p50_latency_ms/)
    expect(() => parseRedisCsv('')).toThrow(/no GET line/)
  })

  it('names keys the way redis-benchmark -r does', () => {
    expect(redisBenchmarkKey(42)).toBe('key:000000000042')
  })
})

describe('runConcurrent', () => {
  it('runs every operation once with at most `clients` at a time and records each latency', async () => {
    const seen: number[] = []
    let active = 0
    let most = 0
    const { latenciesMs } = await runConcurrent(3, 10, async i => {
      active++
      most = Math.max(most, active)
      await new Promise(resolve => setTimeout(resolve, 1))
      seen.push(i)
      active--
    })
    expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(most).toBe(3)
    expect(latenciesMs.length).toBe(10)
    expect(Math.min(...latenciesMs)).toBeGreaterThan(0)
  })

  it('takes nearest-rank percentiles', () => {
    const xs = Float64Array.from([5, 1, 4, 2, 3, 10, 9, 8, 7, 6])
    expect(percentileOf(xs, 50)).toBe(5)
    expect(percentileOf(xs, 90)).toBe(9)
    expect(percentileOf(xs, 99)).toBe(10)
    expect(percentileOf(new Float64Array(0), 99)).toBeNaN()
  })
})
