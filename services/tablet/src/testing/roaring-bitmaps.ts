import type { Bitmap32 } from '../kv/rowmerger/aggregate/roaring-bitmap32-codec.js'
import type { Container64 } from '../kv/rowmerger/aggregate/roaring64-containers.js'
import { runsCardinality, runsToValues, WORDS } from '../kv/rowmerger/aggregate/roaring64-sets.js'

/**
 * Bitmaps of the rbm32 golden vectors (test/compat/java/rbm32-golden/Rbm32Golden.java), built the
 * way the generator builds them: value specs, explicit container specs and the seeded random pairs
 * (the same mulberry32 stream and the same draws, in the same order).
 */

/** Values of a spec in insertion order: `v` or `from..to/step` terms (to exclusive, step may be negative). */
export function specTerms(spec: string): number[][] {
  const terms: number[][] = []
  for (const term of spec === '' ? [] : spec.split(',')) {
    const [from, rest] = term.split('..')
    if (rest === undefined) {
      terms.push([Number(from)])
      continue
    }
    const [to, step = '1'] = rest.split('/')
    const [end, by] = [Number(to), Number(step)]
    const values: number[] = []
    for (let v = Number(from); by > 0 ? v < end : v > end; v += by) values.push(v)
    terms.push(values)
  }
  return terms
}

export const specValues = (spec: string): number[] => specTerms(spec).flat()

type Kind = 'a' | 'b' | 'r'

/** A container of the kind given, over runs as (start, length - 1) pairs kept as they are. */
function containerOfKind(kind: Kind, runs: number[]): Container64 {
  const pairs = Uint16Array.from(runs)
  if (kind === 'r') return { kind: 'run', runs: pairs }
  if (kind === 'a') return { kind: 'array', values: runsToValues(pairs) }
  return { kind: 'bitmap', words: runsToWords(pairs), cardinality: runsCardinality(pairs) }
}

/** The 65536-bit set of runs, filled a word at a time. */
function runsToWords(runs: Uint16Array): Uint32Array {
  const words = new Uint32Array(WORDS)
  for (let i = 0; i < runs.length; i += 2) {
    const [start, end] = [runs[i], runs[i] + runs[i + 1]]
    for (let w = start >>> 5; w <= end >>> 5; w++) {
      const from = Math.max(start - (w << 5), 0)
      const to = Math.min(end - (w << 5), 31)
      words[w] |= (0xffffffff >>> (31 - to + from)) << from
    }
  }
  return words
}

/** `;`-separated containers `<kind><key>:<items>`, kind a (array), b (bitmap) or r (run). */
export function explicitBitmap32(spec: string): Bitmap32 {
  const bitmap: Bitmap32 = { keys: [], containers: [] }
  for (const part of spec === '' ? [] : spec.split(';')) {
    const colon = part.indexOf(':')
    const kind = part[0] as Kind
    const runs: number[] = []
    if (kind === 'r') {
      for (const item of specTerms(part.slice(colon + 1))) {
        const stepped = item.length > 1 && item[1] - item[0] !== 1
        if (stepped) for (const v of item) runs.push(v, 0)
        else runs.push(item[0], item[item.length - 1] - item[0])
      }
    } else {
      const values = [...new Set(specValues(part.slice(colon + 1)))].sort((a, b) => a - b)
      for (const v of values) runs.push(v, 0)
    }
    bitmap.keys.push(Number(part.slice(1, colon)))
    bitmap.containers.push(containerOfKind(kind, runs))
  }
  return bitmap
}

/** mulberry32, as the generator draws it. */
export class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return t ^ (t >>> 14)
  }
  below(n: number): number {
    return (this.next() >>> 0) % n
  }
}

class Runs {
  readonly runs: number[] = []
  end = -2
  add(start: number, length: number): void {
    if (start > 65535) return
    this.end = Math.min(start + length - 1, 65535)
    this.runs.push(start, this.end - start)
  }
  repeat(count: number, next: () => void): void {
    for (let i = 1; i < count; i++) next()
  }
}

/** The generator's ten run shapes, each near a limit where Java's container choice changes. */
function randomRuns(rng: Rng): number[] {
  const r = new Runs()
  const shape = rng.below(10)
  if (shape < 5) smallShapes(rng, r, shape)
  else largeShapes(rng, r, shape)
  return r.runs
}

function smallShapes(rng: Rng, r: Runs, shape: number): void {
  if (shape === 0) {
    const n = 1 + rng.below(24)
    r.add(rng.below(32), 1 + rng.below(2))
    r.repeat(n, () => r.add(r.end + 2 + rng.below(3), 1 + rng.below(2)))
  } else if (shape === 1) {
    const n = 1 + rng.below(8)
    r.add(rng.below(16), 2 + rng.below(2))
    r.repeat(n, () => r.add(r.end + 2 + rng.below(2), 2))
  } else if (shape === 2) {
    r.add(rng.below(128), 1 + rng.below(20000))
  } else if (shape === 3) {
    const n = 4090 + rng.below(12)
    r.add(2 * rng.below(4), 1)
    r.repeat(n, () => r.add(r.end + 2, 1))
  } else {
    const n = 2040 + rng.below(12)
    r.add(rng.below(4), 2 + rng.below(2))
    r.repeat(n, () => r.add(r.end + 2, 2 + rng.below(2)))
  }
}

function largeShapes(rng: Rng, r: Runs, shape: number): void {
  if (shape === 5) {
    r.add(0, 65536)
  } else if (shape === 6) {
    const holes = 1 + rng.below(4)
    r.add(0, 1 + rng.below(20000))
    r.repeat(holes + 1, () => r.add(r.end + 2, 1 + rng.below(20000)))
    r.add(r.end + 2, 65536)
  } else if (shape === 7) {
    const n = 1 + rng.below(3000)
    r.add(rng.below(16), 1 + rng.below(20))
    r.repeat(n, () => r.add(r.end + 2 + rng.below(20), 1 + rng.below(20)))
  } else if (shape === 8) {
    const n = 1 + rng.below(4)
    r.add(65536 - 8 * n - rng.below(8), 1 + rng.below(4))
    r.repeat(n, () => r.add(r.end + 2 + rng.below(3), 1 + rng.below(4)))
    if (rng.below(2) === 0) r.add(r.end + 2, 65536)
  } else {
    const n = 1 + rng.below(40)
    r.add(rng.below(2000), 1)
    r.repeat(n, () => r.add(r.end + 2 + rng.below(3000), 1))
  }
}

/** Splits one run of two or more values into two adjacent runs (a container no Java union makes). */
function splitRuns(runs: number[], rng: Rng): number[] {
  const i = 2 * rng.below(runs.length / 2)
  if (runs[i + 1] === 0) return runs
  const at = 1 + rng.below(runs[i + 1])
  return [...runs.slice(0, i), runs[i], at - 1, runs[i] + at, runs[i + 1] - at, ...runs.slice(i + 2)]
}

const RANDOM_KEYS = [0, 1, 2, 0xffff]

function randomBitmap(rng: Rng): Bitmap32 {
  const mask = rng.below(16)
  const bitmap: Bitmap32 = { keys: [], containers: [] }
  RANDOM_KEYS.forEach((key, i) => {
    if ((mask & (1 << i)) === 0) return
    let runs = randomRuns(rng)
    const pick = rng.below(4)
    if (pick === 1) runs = splitRuns(runs, rng)
    const cardinality = runsCardinality(Uint16Array.from(runs))
    bitmap.keys.push(key)
    bitmap.containers.push(containerOfKind(pick <= 1 ? 'r' : cardinality <= 4096 ? 'a' : 'b', runs))
  })
  return bitmap
}

/** The accumulator and input of random case `index` (before serialization). */
export function randomCase(seed: number, index: number): [Bitmap32, Bitmap32] {
  const rng = new Rng((seed + index) | 0)
  const acc = randomBitmap(rng)
  return [acc, randomBitmap(rng)]
}
