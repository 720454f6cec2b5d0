import { FlussError } from '@sluice/core/errors'

/**
 * The portable serialization of a 32-bit RoaringBitmap (what Java's `RoaringBitmap.serialize`
 * writes and Fluss's `rbm32` aggregation stores in BYTES columns), and the OR of two of them.
 *
 * Layout (little-endian): a cookie, then per container its 16-bit key and cardinality - 1, then
 * (unless the run cookie is used with fewer than 4 containers) one int32 byte offset per container,
 * then the containers: array (sorted uint16 values), bitmap (1024 uint64 words) or run (uint16 run
 * count, then start and length - 1 per run). With run containers the cookie is 12347 plus
 * (size - 1) << 16, followed by a bitset saying which containers are runs; without, it is 12346
 * followed by the int32 container count.
 *
 * Containers are held as 65536-bit sets while merging. Serializing picks each container's smallest
 * form as Java's `runOptimize()` does (a run container when it is strictly smaller than the array
 * or bitmap form).
 */

const SERIAL_COOKIE = 12347
const SERIAL_COOKIE_NO_RUNCONTAINER = 12346
const NO_OFFSET_THRESHOLD = 4
const ARRAY_MAX_CARDINALITY = 4096
const BITMAP_BYTES = 8192
const WORDS = 2048

/** A 32-bit roaring bitmap: high 16 bits -> set of the low 16 bits (2048 x 32-bit words). */
export type Bitmap32 = Map<number, Uint32Array>

function corrupt(reason: string): FlussError {
  return new FlussError('INVALID_REQUEST', `Unable to deserialize roaring bitmap: ${reason}`)
}

class Reader {
  pos = 0
  constructor(readonly buf: Buffer) {}
  need(n: number, what: string): void {
    if (this.pos + n > this.buf.length) throw corrupt(`${what} runs past the end of ${this.buf.length} bytes`)
  }
  u16(what: string): number {
    this.need(2, what)
    const v = this.buf.readUInt16LE(this.pos)
    this.pos += 2
    return v
  }
  i32(what: string): number {
    this.need(4, what)
    const v = this.buf.readInt32LE(this.pos)
    this.pos += 4
    return v
  }
}

/** Parses a serialized RoaringBitmap; malformed bytes are INVALID_REQUEST. */
export function deserializeBitmap32(bytes: Uint8Array): Bitmap32 {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
  const cookie = r.i32('cookie')
  let size: number
  let runFlags: Buffer | null = null
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    size = (cookie >>> 16) + 1
    const flagBytes = (size + 7) >>> 3
    r.need(flagBytes, 'run container bitset')
    runFlags = r.buf.subarray(r.pos, r.pos + flagBytes)
    r.pos += flagBytes
  } else if (cookie === SERIAL_COOKIE_NO_RUNCONTAINER) {
    size = r.i32('container count')
    if (size < 0 || size > 65536) throw corrupt(`container count ${size} is out of range`)
  } else {
    throw corrupt(`unknown cookie ${cookie}`)
  }
  const keys: number[] = []
  const cards: number[] = []
  for (let i = 0; i < size; i++) {
    const key = r.u16('container key')
    if (i > 0 && key <= keys[i - 1]) throw corrupt(`container keys are not increasing at ${i}`)
    keys.push(key)
    cards.push(r.u16('container cardinality') + 1)
  }
  if (runFlags === null || size >= NO_OFFSET_THRESHOLD) {
    r.need(4 * size, 'offset header')
    r.pos += 4 * size
  }
  const bitmap: Bitmap32 = new Map()
  for (let i = 0; i < size; i++) {
    const isRun = runFlags !== null && (runFlags[i >>> 3] & (1 << (i & 7))) !== 0
    bitmap.set(keys[i], readContainer(r, isRun, cards[i]))
  }
  if (r.pos !== r.buf.length) throw corrupt(`${r.buf.length - r.pos} bytes follow the last container`)
  return bitmap
}

function readContainer(r: Reader, isRun: boolean, card: number): Uint32Array {
  const words = new Uint32Array(WORDS)
  if (isRun) {
    const runs = r.u16('run count')
    for (let j = 0; j < runs; j++) {
      const start = r.u16('run start')
      const end = start + r.u16('run length')
      if (end > 0xffff) throw corrupt(`run [${start}, ${end}] exceeds 65535`)
      for (let v = start; v <= end; v++) words[v >>> 5] |= 1 << (v & 31)
    }
  } else if (card > ARRAY_MAX_CARDINALITY) {
    r.need(BITMAP_BYTES, 'bitmap container')
    for (let w = 0; w < WORDS; w++) words[w] = r.buf.readUInt32LE(r.pos + 4 * w)
    r.pos += BITMAP_BYTES
  } else {
    for (let j = 0; j < card; j++) {
      const v = r.u16('array value')
      words[v >>> 5] |= 1 << (v & 31)
    }
  }
  return words
}

/** Adds every value of `other` to `target`. */
export function orInPlace(target: Bitmap32, other: Bitmap32): void {
  for (const [key, words] of other) {
    const mine = target.get(key)
    if (mine === undefined) target.set(key, words.slice())
    else for (let w = 0; w < WORDS; w++) mine[w] |= words[w]
  }
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555)
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

interface ContainerShape {
  readonly key: number
  readonly words: Uint32Array
  readonly cardinality: number
  readonly runs: number
  readonly kind: 'array' | 'bitmap' | 'run'
  readonly bytes: number
}

function shapeOf(key: number, words: Uint32Array): ContainerShape | null {
  let cardinality = 0
  let runs = 0
  let previousHigh = 0
  for (let w = 0; w < WORDS; w++) {
    const x = words[w]
    cardinality += popcount(x)
    runs += popcount(x & ~((x << 1) | previousHigh))
    previousHigh = x >>> 31
  }
  if (cardinality === 0) return null
  const runBytes = 2 + 4 * runs
  const plainBytes = cardinality <= ARRAY_MAX_CARDINALITY ? 2 * cardinality : BITMAP_BYTES
  if (runBytes < plainBytes) return { key, words, cardinality, runs, kind: 'run', bytes: runBytes }
  const kind = cardinality <= ARRAY_MAX_CARDINALITY ? 'array' : 'bitmap'
  return { key, words, cardinality, runs, kind, bytes: plainBytes }
}

/** Serializes in the portable format, run-optimized like Java's `runOptimize()` + `serialize()`. */
export function serializeBitmap32(bitmap: Bitmap32): Buffer {
  const shapes = [...bitmap.keys()]
    .sort((a, b) => a - b)
    .map(key => shapeOf(key, bitmap.get(key) as Uint32Array))
    .filter((s): s is ContainerShape => s !== null)
  const size = shapes.length
  const hasRun = shapes.some(s => s.kind === 'run')
  const withOffsets = !hasRun || size >= NO_OFFSET_THRESHOLD
  const headerBytes = (hasRun ? 4 + ((size + 7) >>> 3) : 8) + 4 * size + (withOffsets ? 4 * size : 0)
  const out = Buffer.alloc(headerBytes + shapes.reduce((n, s) => n + s.bytes, 0))
  let pos = 0
  if (hasRun) {
    out.writeInt32LE(SERIAL_COOKIE | ((size - 1) << 16), 0)
    shapes.forEach((s, i) => {
      if (s.kind === 'run') out[4 + (i >>> 3)] |= 1 << (i & 7)
    })
    pos = 4 + ((size + 7) >>> 3)
  } else {
    out.writeInt32LE(SERIAL_COOKIE_NO_RUNCONTAINER, 0)
    out.writeInt32LE(size, 4)
    pos = 8
  }
  for (const s of shapes) {
    out.writeUInt16LE(s.key, pos)
    out.writeUInt16LE(s.cardinality - 1, pos + 2)
    pos += 4
  }
  let offset = headerBytes
  if (withOffsets) {
    for (const s of shapes) {
      out.writeInt32LE(offset, pos)
      pos += 4
      offset += s.bytes
    }
  }
  for (const s of shapes) pos = writeContainer(out, pos, s)
  return out
}

function writeContainer(out: Buffer, start: number, s: ContainerShape): number {
  let pos = start
  const words = s.words
  if (s.kind === 'bitmap') {
    for (let w = 0; w < WORDS; w++) out.writeUInt32LE(words[w], pos + 4 * w)
    return pos + BITMAP_BYTES
  }
  if (s.kind === 'array') {
    for (let v = 0; v < 65536; v++) {
      if ((words[v >>> 5] & (1 << (v & 31))) !== 0) {
        out.writeUInt16LE(v, pos)
        pos += 2
      }
    }
    return pos
  }
  out.writeUInt16LE(s.runs, pos)
  pos += 2
  const isSet = (v: number) => v < 65536 && (words[v >>> 5] & (1 << (v & 31))) !== 0
  for (let v = 0; v < 65536; v++) {
    if (!isSet(v)) continue
    let end = v
    while (isSet(end + 1)) end++
    out.writeUInt16LE(v, pos)
    out.writeUInt16LE(end - v, pos + 2)
    pos += 4
    v = end
  }
  return pos
}

/** Builds a bitmap of the given values (tests, tools). */
export function bitmap32Of(values: Iterable<number>): Bitmap32 {
  const bitmap: Bitmap32 = new Map()
  for (const value of values) {
    const key = value >>> 16
    let words = bitmap.get(key)
    if (words === undefined) {
      words = new Uint32Array(WORDS)
      bitmap.set(key, words)
    }
    const low = value & 0xffff
    words[low >>> 5] |= 1 << (low & 31)
  }
  return bitmap
}

/** The values of a bitmap in unsigned order (tests, tools). */
export function bitmap32Values(bitmap: Bitmap32): number[] {
  const values: number[] = []
  for (const key of [...bitmap.keys()].sort((a, b) => a - b)) {
    const words = bitmap.get(key) as Uint32Array
    for (let v = 0; v < 65536; v++) if ((words[v >>> 5] & (1 << (v & 31))) !== 0) values.push(key * 65536 + v)
  }
  return values
}

/** rbm32 aggregation: the serialized OR of two serialized bitmaps. */
export function orSerializedBitmap32(acc: Uint8Array, input: Uint8Array): Buffer {
  const merged = deserializeBitmap32(acc)
  orInPlace(merged, deserializeBitmap32(input))
  return serializeBitmap32(merged)
}
