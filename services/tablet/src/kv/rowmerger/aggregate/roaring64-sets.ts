/**
 * Conversions between the three ways a 16-bit roaring container holds its set: sorted values,
 * 2048 32-bit words (bit v of the 65536-bit set), and runs as (start, length - 1) pairs.
 */

export const WORDS = 2048

export function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555)
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

export function wordsCardinality(words: Uint32Array): number {
  let n = 0
  for (let w = 0; w < WORDS; w++) n += popcount(words[w])
  return n
}

/** Number of maximal runs of set bits. */
export function wordsRunCount(words: Uint32Array): number {
  let runs = 0
  let previousHigh = 0
  for (let w = 0; w < WORDS; w++) {
    const x = words[w]
    runs += popcount(x & ~((x << 1) | previousHigh))
    previousHigh = x >>> 31
  }
  return runs
}

export function valuesRunCount(values: Uint16Array): number {
  let runs = 0
  for (let i = 0; i < values.length; i++) if (i === 0 || values[i] !== values[i - 1] + 1) runs++
  return runs
}

export function runsCardinality(runs: Uint16Array): number {
  let n = 0
  for (let i = 1; i < runs.length; i += 2) n += runs[i] + 1
  return n
}

export function valuesToWords(values: Uint16Array): Uint32Array {
  const words = new Uint32Array(WORDS)
  for (const v of values) words[v >>> 5] |= 1 << (v & 31)
  return words
}

export function runsToWords(runs: Uint16Array, into: Uint32Array = new Uint32Array(WORDS)): Uint32Array {
  for (let i = 0; i < runs.length; i += 2) {
    const end = runs[i] + runs[i + 1]
    for (let v = runs[i]; v <= end; v++) into[v >>> 5] |= 1 << (v & 31)
  }
  return into
}

export function wordsToValues(words: Uint32Array, cardinality: number): Uint16Array {
  const values = new Uint16Array(cardinality)
  let n = 0
  for (let w = 0; w < WORDS; w++) {
    let x = words[w]
    while (x !== 0) {
      const low = x & -x
      values[n++] = (w << 5) + (31 - Math.clz32(low))
      x ^= low
    }
  }
  return values
}

export function runsToValues(runs: Uint16Array): Uint16Array {
  const values = new Uint16Array(runsCardinality(runs))
  let n = 0
  for (let i = 0; i < runs.length; i += 2) {
    const end = runs[i] + runs[i + 1]
    for (let v = runs[i]; v <= end; v++) values[n++] = v
  }
  return values
}

export function valuesToRuns(values: Uint16Array): Uint16Array {
  const runs = new Uint16Array(2 * valuesRunCount(values))
  let n = -2
  for (let i = 0; i < values.length; i++) {
    if (i === 0 || values[i] !== values[i - 1] + 1) {
      n += 2
      runs[n] = values[i]
    } else {
      runs[n + 1]++
    }
  }
  return runs
}

/** The runs of a 65536-bit set as (start, length - 1) pairs, found word by word (`count`: their number, when known). */
export function wordsToRuns(words: Uint32Array, count: number = wordsRunCount(words)): Uint16Array {
  const runs = new Uint16Array(2 * count)
  const lowestBit = (x: number) => 31 - Math.clz32(x & -x)
  let n = 0
  let inRun = false
  for (let w = 0; w < words.length; w++) {
    let from = 0
    while (from < 32) {
      const above = (inRun ? ~words[w] : words[w]) & (0xffffffff << from)
      if (above === 0) break
      from = lowestBit(above)
      if (inRun) runs[n + 1] = (w << 5) + from - 1 - runs[n]
      else runs[n] = (w << 5) + from
      if (inRun) n += 2
      inRun = !inRun
    }
  }
  if (inRun) runs[n + 1] = 0xffff - runs[n]
  return runs
}

/** Sorted union of two sorted value lists. */
export function mergeValues(a: Uint16Array, b: Uint16Array): Uint16Array {
  const out = new Uint16Array(a.length + b.length)
  let i = 0
  let j = 0
  let n = 0
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) out[n++] = a[i++]
    else if (a[i] > b[j]) out[n++] = b[j++]
    else {
      out[n++] = a[i++]
      j++
    }
  }
  while (i < a.length) out[n++] = a[i++]
  while (j < b.length) out[n++] = b[j++]
  return out.slice(0, n)
}
