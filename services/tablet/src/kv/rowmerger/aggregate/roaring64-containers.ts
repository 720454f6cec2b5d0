import { corrupt64, type Roaring64Writer, type RoaringReader } from './roaring64-io.js'
import {
  mergeValues,
  runsCardinality,
  runsToValues,
  runsToWords,
  valuesRunCount,
  valuesToRuns,
  valuesToWords,
  WORDS,
  wordsCardinality,
  wordsRunCount,
  wordsToRuns,
  wordsToValues,
} from './roaring64-sets.js'

/**
 * The 16-bit containers of a Roaring64Bitmap (RoaringBitmap 1.3.0) and the container kinds its
 * union and `runOptimize()` produce. Which kind Java picks depends on the kinds it started from,
 * not only on the resulting set, so the kinds are modelled exactly:
 *
 * - `ior` (the union Fluss's rbm64 aggregation runs): a full container is one run; a bitmap on
 *   either side gives a bitmap; two arrays give an array up to 4096 values, else a bitmap; a run
 *   with an array or a run takes the smallest form, preferring the run on a tie
 *   (run bytes <= min(8192, 2 * cardinality + 2)).
 * - `runOptimize()` replaces an array or bitmap by a run only when the run is strictly smaller
 *   than 2 * cardinality (array) or 8192 bytes (bitmap); a run container is never replaced.
 *
 * Serialized: a kind byte (run 0, bitmap 1, array 2), the int32 cardinality, then the body:
 * run = uint16 run count + (start, length - 1) pairs; bitmap = 1024 little-endian longs;
 * array = the sorted uint16 values. All little-endian.
 *
 * Containers are never changed once built (a union builds a new one), so bitmaps may share them.
 */
export type Container64 =
  | { readonly kind: 'array'; readonly values: Uint16Array }
  | { readonly kind: 'bitmap'; readonly words: Uint32Array; readonly cardinality: number }
  | { readonly kind: 'run'; readonly runs: Uint16Array }

type Kind = Container64['kind']

const KIND_CODES: Readonly<Record<Kind, number>> = { run: 0, bitmap: 1, array: 2 }
const ARRAY_MAX_CARDINALITY = 4096
const BITMAP_BYTES = 8192
const FULL = 65536

const runBytes = (runs: number) => 2 + 4 * runs

export function cardinalityOf(c: Container64): number {
  if (c.kind === 'array') return c.values.length
  return c.kind === 'bitmap' ? c.cardinality : runsCardinality(c.runs)
}

/** The sorted values of a container. */
export function containerValues(c: Container64): Uint16Array {
  if (c.kind === 'array') return c.values
  return c.kind === 'bitmap' ? wordsToValues(c.words, c.cardinality) : runsToValues(c.runs)
}

function wordsOf(c: Container64): Uint32Array {
  if (c.kind === 'bitmap') return c.words.slice()
  return c.kind === 'array' ? valuesToWords(c.values) : runsToWords(c.runs)
}

/** Reads one container body of the kind code and cardinality that precede it. */
export function readContainer(r: RoaringReader, code: number, cardinality: number): Container64 {
  if (code === KIND_CODES.array) {
    if (cardinality < 0 || cardinality > FULL) throw corrupt64(`array cardinality ${cardinality}`)
    r.need(2 * cardinality, 'array container')
    const values = new Uint16Array(cardinality)
    for (let i = 0; i < cardinality; i++) {
      values[i] = r.u16('array value')
      if (i > 0 && values[i] <= values[i - 1]) throw corrupt64('array container values are not increasing')
    }
    return { kind: 'array', values }
  }
  if (code === KIND_CODES.bitmap) {
    r.need(BITMAP_BYTES, 'bitmap container')
    const words = new Uint32Array(WORDS)
    for (let w = 0; w < WORDS; w++) words[w] = r.buf.readUInt32LE(r.pos + 4 * w)
    r.pos += BITMAP_BYTES
    if (wordsCardinality(words) !== cardinality)
      throw corrupt64(`bitmap container is not of cardinality ${cardinality}`)
    return { kind: 'bitmap', words, cardinality }
  }
  if (code === KIND_CODES.run) return readRuns(r, cardinality)
  throw corrupt64(`unknown container type ${code}`)
}

function readRuns(r: RoaringReader, cardinality: number): Container64 {
  const count = r.u16('run count')
  r.need(4 * count, 'run container')
  const runs = new Uint16Array(2 * count)
  let previousEnd = -1
  for (let i = 0; i < 2 * count; i += 2) {
    runs[i] = r.u16('run start')
    runs[i + 1] = r.u16('run length')
    const end = runs[i] + runs[i + 1]
    if (runs[i] <= previousEnd || end >= FULL)
      throw corrupt64(`run [${runs[i]}, ${end}] overlaps or exceeds 65535`)
    previousEnd = end
  }
  if (runsCardinality(runs) !== cardinality)
    throw corrupt64(`run container is not of cardinality ${cardinality}`)
  return { kind: 'run', runs }
}

export function writeContainer(w: Roaring64Writer, c: Container64): void {
  w.u8(KIND_CODES[c.kind])
  w.i32(cardinalityOf(c))
  if (c.kind === 'array') {
    for (const v of c.values) w.u16(v)
  } else if (c.kind === 'bitmap') {
    for (let i = 0; i < WORDS; i++) w.u32(c.words[i])
  } else {
    w.u16(c.runs.length / 2)
    for (const v of c.runs) w.u16(v)
  }
}

/** Java's `RunContainer.toEfficientContainer()` choice. */
function efficientKind(cardinality: number, runs: number): Kind {
  if (runBytes(runs) <= Math.min(BITMAP_BYTES, 2 * cardinality + 2)) return 'run'
  return cardinality <= ARRAY_MAX_CARDINALITY ? 'array' : 'bitmap'
}

function unionKind(a: Kind, b: Kind, cardinality: number, runs: number): Kind {
  if (cardinality === FULL) return 'run'
  if (a === 'bitmap' || b === 'bitmap') return 'bitmap'
  if (a === 'array' && b === 'array') return cardinality <= ARRAY_MAX_CARDINALITY ? 'array' : 'bitmap'
  return efficientKind(cardinality, runs)
}

/** `a.ior(b)` of Roaring64Bitmap's `or`: the union, in the kind Java gives it. */
export function unionContainers(a: Container64, b: Container64): Container64 {
  if (a.kind === 'run' && a.runs.length === 2 && a.runs[0] === 0 && a.runs[1] === FULL - 1) return a
  const small =
    a.kind !== 'bitmap' &&
    b.kind !== 'bitmap' &&
    cardinalityOf(a) <= ARRAY_MAX_CARDINALITY &&
    cardinalityOf(b) <= ARRAY_MAX_CARDINALITY
  if (small) {
    const values = mergeValues(containerValues(a), containerValues(b))
    const kind = unionKind(a.kind, b.kind, values.length, valuesRunCount(values))
    if (kind === 'array') return { kind, values }
    if (kind === 'run') return { kind, runs: valuesToRuns(values) }
    return { kind, words: valuesToWords(values), cardinality: values.length }
  }
  const words = wordsOf(a)
  if (b.kind === 'bitmap') for (let i = 0; i < WORDS; i++) words[i] |= b.words[i]
  else if (b.kind === 'array') for (const v of b.values) words[v >>> 5] |= 1 << (v & 31)
  else runsToWords(b.runs, words)
  const cardinality = wordsCardinality(words)
  const kind = unionKind(a.kind, b.kind, cardinality, wordsRunCount(words))
  if (kind === 'array') return { kind, values: wordsToValues(words, cardinality) }
  if (kind === 'run') return { kind, runs: wordsToRuns(words) }
  return { kind, words, cardinality }
}

/** What `Roaring64Bitmap.runOptimize()` leaves in place of `c`. */
export function runOptimized(c: Container64): Container64 {
  if (c.kind === 'array') {
    const runs = valuesRunCount(c.values)
    return 2 * c.values.length > runBytes(runs) ? { kind: 'run', runs: valuesToRuns(c.values) } : c
  }
  if (c.kind === 'bitmap') {
    return BITMAP_BYTES > runBytes(wordsRunCount(c.words)) ? { kind: 'run', runs: wordsToRuns(c.words) } : c
  }
  return c
}

/** A container built by `addLong` calls: an array up to 4096 values, else a bitmap. */
export function containerOf(values: Uint16Array): Container64 {
  if (values.length <= ARRAY_MAX_CARDINALITY) return { kind: 'array', values }
  const words = valuesToWords(values)
  return { kind: 'bitmap', words, cardinality: values.length }
}
