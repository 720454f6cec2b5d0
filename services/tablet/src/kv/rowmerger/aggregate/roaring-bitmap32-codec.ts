import { FlussError } from '@sluice/core/errors'
import { type Container64, cardinalityOf } from './roaring64-containers.js'
import { LITTLE_ENDIAN_HOST, RoaringReader } from './roaring64-io.js'
import { runsCardinality, WORDS, wordsCardinality } from './roaring64-sets.js'

/**
 * The portable serialization of a 32-bit RoaringBitmap, read and written container by container
 * exactly as Java's `RoaringBitmap.deserialize(ByteBuffer)` / `serialize(ByteBuffer)` do: the
 * container kinds and run lists are kept as they were written, not normalized.
 *
 * Layout (little-endian): a cookie, then per container its 16-bit key and cardinality - 1, then
 * (unless the run cookie is used with fewer than 4 containers) one int32 byte offset per container,
 * then the containers: array (sorted uint16 values), bitmap (1024 uint64 words) or run (uint16 run
 * count, then start and length - 1 per run). With run containers the cookie is 12347 plus
 * (size - 1) << 16, followed by a bitset saying which containers are runs; without, it is 12346
 * followed by the int32 container count. A container that is not a run is a bitmap when its
 * cardinality exceeds 4096, else an array.
 *
 * Java trusts the headers; here inconsistent bytes (keys out of order, unsorted array values,
 * overlapping runs, a cardinality the body does not have, trailing bytes) are INVALID_REQUEST.
 */
export interface Bitmap32 {
  /** Container keys (the high 16 bits), increasing. */
  keys: number[]
  /** The container of each key, in the kind Java holds it; never empty, never changed in place. */
  containers: Container64[]
}

const SERIAL_COOKIE = 12347
const SERIAL_COOKIE_NO_RUNCONTAINER = 12346
const NO_OFFSET_THRESHOLD = 4
const ARRAY_MAX_CARDINALITY = 4096
const BITMAP_BYTES = 8192

export function corrupt32(reason: string): FlussError {
  return new FlussError('INVALID_REQUEST', `Unable to deserialize roaring bitmap: ${reason}`)
}

/** Parses a serialized RoaringBitmap; malformed bytes are INVALID_REQUEST. */
export function readBitmap32(bytes: Uint8Array): Bitmap32 {
  const r = new RoaringReader(bytes, corrupt32)
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
    if (size < 0 || size > 65536) throw corrupt32(`container count ${size} is out of range`)
  } else {
    throw corrupt32(`unknown cookie ${cookie}`)
  }
  const keys: number[] = []
  const cards: number[] = []
  for (let i = 0; i < size; i++) {
    const key = r.u16('container key')
    if (i > 0 && key <= keys[i - 1]) throw corrupt32(`container keys are not increasing at ${i}`)
    keys.push(key)
    cards.push(r.u16('container cardinality') + 1)
  }
  if (runFlags === null || size >= NO_OFFSET_THRESHOLD) {
    r.need(4 * size, 'offset header')
    r.pos += 4 * size
  }
  const containers: Container64[] = []
  for (let i = 0; i < size; i++) {
    const isRun = runFlags !== null && (runFlags[i >>> 3] & (1 << (i & 7))) !== 0
    containers.push(readContainer(r, isRun, cards[i]))
  }
  if (r.pos !== r.buf.length) throw corrupt32(`${r.buf.length - r.pos} bytes follow the last container`)
  return { keys, containers }
}

function readContainer(r: RoaringReader, isRun: boolean, cardinality: number): Container64 {
  if (isRun) return readRuns(r, cardinality)
  if (cardinality > ARRAY_MAX_CARDINALITY) {
    const words = r.copy(new Uint32Array(WORDS), 'bitmap container')
    const actual = wordsCardinality(words)
    if (actual !== cardinality) throw corrupt32(`bitmap container has ${actual} values, not ${cardinality}`)
    return { kind: 'bitmap', words, cardinality }
  }
  const values = r.u16s(cardinality, 'array container')
  for (let j = 1; j < cardinality; j++) {
    if (values[j] <= values[j - 1]) throw corrupt32('array container values are not increasing')
  }
  return { kind: 'array', values }
}

/** Runs stay as written: adjacent runs are kept apart, as Java keeps them. */
function readRuns(r: RoaringReader, cardinality: number): Container64 {
  const runs = r.u16s(2 * r.u16('run count'), 'run container')
  let previousEnd = -1
  for (let i = 0; i < runs.length; i += 2) {
    const end = runs[i] + runs[i + 1]
    if (runs[i] <= previousEnd || end > 0xffff) {
      throw corrupt32(`run [${runs[i]}, ${end}] overlaps the previous run or exceeds 65535`)
    }
    previousEnd = end
  }
  const actual = runsCardinality(runs)
  if (actual !== cardinality) throw corrupt32(`run container has ${actual} values, not ${cardinality}`)
  return { kind: 'run', runs }
}

function bodyBytes(c: Container64): number {
  if (c.kind === 'array') return 2 * c.values.length
  return c.kind === 'bitmap' ? BITMAP_BYTES : 2 + 2 * c.runs.length
}

/** Java's `serialize(ByteBuffer)`: every container in the kind it has, nothing optimized. */
export function writeBitmap32(bitmap: Bitmap32): Buffer {
  const { keys, containers } = bitmap
  const size = keys.length
  const hasRun = containers.some(c => c.kind === 'run')
  const withOffsets = !hasRun || size >= NO_OFFSET_THRESHOLD
  const headerBytes = (hasRun ? 4 + ((size + 7) >>> 3) : 8) + 4 * size + (withOffsets ? 4 * size : 0)
  const out = Buffer.alloc(headerBytes + containers.reduce((n, c) => n + bodyBytes(c), 0))
  let pos: number
  if (hasRun) {
    out.writeInt32LE(SERIAL_COOKIE | ((size - 1) << 16), 0)
    containers.forEach((c, i) => {
      if (c.kind === 'run') out[4 + (i >>> 3)] |= 1 << (i & 7)
    })
    pos = 4 + ((size + 7) >>> 3)
  } else {
    out.writeInt32LE(SERIAL_COOKIE_NO_RUNCONTAINER, 0)
    out.writeInt32LE(size, 4)
    pos = 8
  }
  for (let i = 0; i < size; i++) {
    out.writeUInt16LE(keys[i], pos)
    out.writeUInt16LE(cardinalityOf(containers[i]) - 1, pos + 2)
    pos += 4
  }
  let offset = headerBytes
  for (const c of withOffsets ? containers : []) {
    out.writeInt32LE(offset, pos)
    pos += 4
    offset += bodyBytes(c)
  }
  for (const c of containers) pos = writeBody(out, pos, c)
  return out
}

function writeBody(out: Buffer, start: number, c: Container64): number {
  let pos = start
  if (c.kind === 'run') {
    out.writeUInt16LE(c.runs.length / 2, pos)
    pos += 2
  }
  const body = c.kind === 'array' ? c.values : c.kind === 'run' ? c.runs : c.words
  out.set(littleEndianBytes(body), pos)
  return pos + body.byteLength
}

/** The little-endian bytes of typed-array values (their own memory on a little-endian host). */
function littleEndianBytes(values: Uint16Array | Uint32Array): Uint8Array {
  if (LITTLE_ENDIAN_HOST) return new Uint8Array(values.buffer, values.byteOffset, values.byteLength)
  const width = values.BYTES_PER_ELEMENT
  const bytes = Buffer.alloc(values.byteLength)
  values.forEach((v, i) => {
    bytes.writeUIntLE(v, width * i, width)
  })
  return bytes
}
