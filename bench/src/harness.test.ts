import { describe, expect, it } from 'vitest'
import { type Benchmark, median, percentile, runBenchmark } from './harness.js'
import { mergeIntoDoc } from './report.js'

describe('bench harness', () => {
  it('computes medians and percentiles', () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 90)).toBe(9)
    expect(percentile([5], 99)).toBe(5)
  })

  it('alternates subject and baseline, reports the ratio of medians and the target verdict', async () => {
    const order: string[] = []
    let s = 0
    let b = 0
    const bench: Benchmark<null> = {
      name: 'fake',
      description: 'a fake benchmark',
      unit: 'ops/s',
      better: 'higher',
      target: { ratio: 0.5 },
      runs: 4,
      setup: async () => null,
      subject: {
        name: 'sub',
        run: async () => {
          order.push('s')
          return { value: 10 + s++ }
        },
      },
      baseline: {
        name: 'base',
        run: async () => {
          order.push('b')
          return { value: 40 + b++, extra: { p99: 7 } }
        },
      },
    }
    const r = await runBenchmark(bench)
    // warm-up b,s then b s | s b | b s | s b
    expect(order.join('')).toBe('bsbssbbssb')
    expect(r.subject.samples).toEqual([11, 12, 13, 14])
    expect(r.baseline.median).toBe(42.5)
    expect(r.baseline.extra.p99).toBe(7)
    expect(r.ratio).toBeCloseTo(12.5 / 42.5)
    expect(r.roundRatio).toBeCloseTo(
      (Math.sqrt((11 / 41) * (12 / 42)) + Math.sqrt((13 / 43) * (14 / 44))) / 2,
    )
    expect(r.targetMet).toBe(false)
  })

  it('pairs rounds so that running first or second cancels out of the round ratio', async () => {
    // The subject does 0.95 of the baseline; the machine speeds up every round, and the second run
    // of a round gets 10% more done than the first.
    let call = -2 // the two warm-up runs come first
    const value = (base: number) => {
      const c = call++
      if (c < 0) return { value: 1 }
      const round = Math.floor(c / 2)
      return { value: base * (round + 1) * (c % 2 === 1 ? 1.1 : 1) }
    }
    const r = await runBenchmark({
      name: 'order',
      description: 'd',
      unit: 'ops/s',
      better: 'higher',
      runs: 4,
      setup: async () => null,
      subject: { name: 's', run: async () => value(95) },
      baseline: { name: 'b', run: async () => value(100) },
    })
    expect(r.ratio).toBeCloseTo(251.75 / 260)
    expect(r.roundRatio).toBeCloseTo(0.95)
  })

  it('replaces only its own section in docs/benchmarks.md', async () => {
    const mk = (name: string, value: number) =>
      runBenchmark({
        name,
        description: `d-${name}`,
        unit: 'x',
        better: 'lower',
        runs: 1,
        setup: async () => null,
        subject: { name: 's', run: async () => ({ value }) },
        baseline: { name: 'b', run: async () => ({ value: 1 }) },
      })
    const doc1 = mergeIntoDoc(undefined, [await mk('one', 2), await mk('two', 3)])
    const doc2 = mergeIntoDoc(doc1, [await mk('one', 5)])
    expect(doc2).toContain('d-two')
    expect(doc2.match(/<!-- bench:one -->/g)).toHaveLength(1)
    expect(doc2).toContain('**5.000**')
    expect(doc2).not.toContain('**2.000**')
  })
})
