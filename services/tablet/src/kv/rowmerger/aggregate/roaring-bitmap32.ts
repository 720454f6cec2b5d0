import { type Bitmap32, readBitmap32, writeBitmap32 } from './roaring-bitmap32-codec.js'
import { type Container64, containerOf, containerValues, unionContainers } from './roaring64-containers.js'
import {
  runsCardinality,
  runsToValues,
  valuesRunCount,
  valuesToRuns,
  wordsRunCount,
  wordsToRuns,
} from './roaring64-sets.js'

export { type Bitmap32, writeBitmap32 } from './roaring-bitmap32-codec.js'

/**
 * Fluss's `rbm32` values: a `RoaringBitmap` of RoaringBitmap 1.3.0 (the version Fluss 0.9.1
 * ships) in the portable format (roaring-bitmap32-codec.ts). Fluss's aggregation deserializes
 * both values, runs `acc.or(input)`, then `runOptimize()` and `serialize(ByteBuffer)`; the bytes
 * depend on the container kinds each step leaves, not only on the resulting set, so every step is
 * replayed on containers of Java's kinds. The 16-bit containers and their union are the ones
 * `Roaring64Bitmap` uses too (roaring64-containers.ts).
 *
 * Where the kinds matter: a union involving a run container (and no bitmap) keeps the run while
 * it is no larger than the array form plus its 2-byte length (Java's `toEfficientContainer()`),
 * whereas `runOptimize()` turns an array or bitmap into runs only when they are strictly smaller;
 * two arrays of more than 4096 values together become a bitmap (an array again when the union is
 * no larger); a full container is one run; and `runOptimize()` turns a run container that is
 * larger than that bound back into an array or bitmap, keeping its runs as written otherwise
 * (adjacent runs from another writer stay apart). `Roaring64Bitmap.runOptimize()` differs there:
 * it only ever swaps in runs, so rbm64 leaves such a run container alone.
 */

const BITMAP_BYTES = 8192
const runBytes = (runs: number) => 2 + 4 * runs

/** Parses a serialized RoaringBitmap; malformed bytes are INVALID_REQUEST. */
export function deserializeBitmap32(bytes: Uint8Array): Bitmap32 {
  return readBitmap32(bytes)
}

/** `RoaringBitmap.or`: containers of shared keys are united (`ior`), the others carried over. */
export function orBitmap32(a: Bitmap32, b: Bitmap32): Bitmap32 {
  const keys: number[] = []
  const containers: Container64[] = []
  let i = 0
  let j = 0
  while (i < a.keys.length || j < b.keys.length) {
    const keyA = i < a.keys.length ? a.keys[i] : 0x10000
    const keyB = j < b.keys.length ? b.keys[j] : 0x10000
    if (keyA === keyB) {
      keys.push(keyA)
      containers.push(unionContainers(a.containers[i++], b.containers[j++]))
    } else if (keyA < keyB) {
      keys.push(keyA)
      containers.push(a.containers[i++])
    } else {
      keys.push(keyB)
      containers.push(b.containers[j++])
    }
  }
  return { keys, containers }
}

/**
 * `Container.runOptimize()`: arrays and bitmaps become runs when those are strictly smaller; a run
 * container is `toEfficientContainer()`, kept unless larger than min(8192, 2 * cardinality + 2).
 */
export function runOptimizedContainer(c: Container64): Container64 {
  if (c.kind === 'array') {
    const runs = valuesRunCount(c.values)
    return 2 * c.values.length > runBytes(runs) ? { kind: 'run', runs: valuesToRuns(c.values) } : c
  }
  if (c.kind === 'bitmap') {
    const runs = wordsRunCount(c.words)
    return BITMAP_BYTES > runBytes(runs) ? { kind: 'run', runs: wordsToRuns(c.words, runs) } : c
  }
  if (runBytes(c.runs.length / 2) <= Math.min(BITMAP_BYTES, 2 * runsCardinality(c.runs) + 2)) return c
  return containerOf(runsToValues(c.runs))
}

/** `RoaringBitmap.runOptimize()`, as a new bitmap. */
export function runOptimizeBitmap32(bitmap: Bitmap32): Bitmap32 {
  return { keys: bitmap.keys.slice(), containers: bitmap.containers.map(runOptimizedContainer) }
}

/** Fluss's `serializeRoaringBitmap32`: `runOptimize()` then `serialize(ByteBuffer)`. */
export function serializeBitmap32(bitmap: Bitmap32): Buffer {
  return writeBitmap32(runOptimizeBitmap32(bitmap))
}

/** rbm32 aggregation (`FieldRoaringBitmap32Agg`): the bytes Fluss writes for `acc OR input`. */
export function orSerializedBitmap32(acc: Uint8Array, input: Uint8Array): Buffer {
  return serializeBitmap32(orBitmap32(readBitmap32(acc), readBitmap32(input)))
}

/** A bitmap built by `RoaringBitmap.add` calls: per key an array up to 4096 values, else a bitmap. */
export function bitmap32Of(values: Iterable<number>): Bitmap32 {
  const byKey = new Map<number, Set<number>>()
  for (const value of values) {
    const key = value >>> 16
    let low = byKey.get(key)
    if (low === undefined) {
      low = new Set()
      byKey.set(key, low)
    }
    low.add(value & 0xffff)
  }
  const keys = [...byKey.keys()].sort((a, b) => a - b)
  const containers = keys.map(key => containerOf(Uint16Array.from(byKey.get(key) as Set<number>).sort()))
  return { keys, containers }
}

/** The values of a bitmap in unsigned order (tests, tools). */
export function bitmap32Values(bitmap: Bitmap32): number[] {
  const values: number[] = []
  bitmap.keys.forEach((key, i) => {
    for (const low of containerValues(bitmap.containers[i])) values.push(key * 65536 + low)
  })
  return values
}
