/**
 * Benchmark harness. Every benchmark measures its subject and its baseline in the same run,
 * alternating them so that machine noise hits both, and reports medians and the ratio.
 */

export interface Sample {
  /** The measured figure of one run (rows/s, MB/s, µs, ...). */
  readonly value: number
  /** Secondary figures worth reporting (p99, bytes sent, ...). Medians are reported per key. */
  readonly extra?: Readonly<Record<string, number>>
}

export interface Case<C> {
  readonly name: string
  run(ctx: C): Promise<Sample>
}

export interface Benchmark<C = unknown> {
  readonly name: string
  readonly description: string
  /** Unit of `Sample.value`, e.g. 'rows/s'. */
  readonly unit: string
  /** 'higher' for throughput, 'lower' for latency. */
  readonly better: 'higher' | 'lower'
  /** Target on subject/baseline, e.g. { ratio: 0.6 } means subject ≥ 0.6 × baseline (or ≤ for 'lower'). */
  readonly target?: { readonly ratio: number; readonly note?: string }
  readonly runs?: number
  setup(): Promise<C>
  teardown?(ctx: C): Promise<void>
  readonly subject: Case<C>
  readonly baseline: Case<C>
}

export interface CaseResult {
  readonly name: string
  readonly median: number
  readonly min: number
  readonly max: number
  readonly samples: readonly number[]
  readonly extra: Readonly<Record<string, number>>
}

export interface BenchResult {
  readonly name: string
  readonly description: string
  readonly unit: string
  readonly better: 'higher' | 'lower'
  readonly runs: number
  readonly subject: CaseResult
  readonly baseline: CaseResult
  /** subject median / baseline median. */
  readonly ratio: number
  /**
   * The median, over each two consecutive rounds (one runs the baseline first, the other the
   * subject), of the geometric mean of their two subject/baseline ratios: what running first or
   * second costs cancels out, and drift across rounds does not enter (the ratio of one round when
   * there is a single round).
   */
  readonly roundRatio: number
  readonly target?: { readonly ratio: number; readonly note?: string }
  readonly targetMet?: boolean
  readonly node: string
  readonly startedAt: string
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2
}

export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  const idx = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))
  return s[idx]
}

function summarize(name: string, samples: Sample[]): CaseResult {
  const values = samples.map(s => s.value)
  const keys = new Set(samples.flatMap(s => Object.keys(s.extra ?? {})))
  const extra: Record<string, number> = {}
  for (const k of keys)
    extra[k] = median(samples.map(s => s.extra?.[k]).filter((v): v is number => v !== undefined))
  return {
    name,
    median: median(values),
    min: Math.min(...values),
    max: Math.max(...values),
    samples: values,
    extra,
  }
}

export async function runBenchmark<C>(b: Benchmark<C>, runsOverride?: number): Promise<BenchResult> {
  const runs = runsOverride ?? b.runs ?? 5
  const startedAt = new Date().toISOString()
  const ctx = await b.setup()
  const subject: Sample[] = []
  const baseline: Sample[] = []
  try {
    // One warm-up of each, then alternate so drift affects both equally.
    await b.baseline.run(ctx)
    await b.subject.run(ctx)
    for (let i = 0; i < runs; i++) {
      if (i % 2 === 0) {
        baseline.push(await b.baseline.run(ctx))
        subject.push(await b.subject.run(ctx))
      } else {
        subject.push(await b.subject.run(ctx))
        baseline.push(await b.baseline.run(ctx))
      }
    }
  } finally {
    await b.teardown?.(ctx)
  }
  const s = summarize(b.subject.name, subject)
  const base = summarize(b.baseline.name, baseline)
  const ratio = s.median / base.median
  const perRound = subject.map((x, i) => x.value / baseline[i].value)
  const pairs: number[] = []
  for (let i = 0; i + 1 < perRound.length; i += 2) pairs.push(Math.sqrt(perRound[i] * perRound[i + 1]))
  const roundRatio = median(pairs.length > 0 ? pairs : perRound)
  const targetMet =
    b.target === undefined
      ? undefined
      : b.better === 'higher'
        ? ratio >= b.target.ratio
        : ratio <= b.target.ratio
  return {
    name: b.name,
    description: b.description,
    unit: b.unit,
    better: b.better,
    runs,
    subject: s,
    baseline: base,
    ratio,
    roundRatio,
    target: b.target,
    targetMet,
    node: process.version,
    startedAt,
  }
}
