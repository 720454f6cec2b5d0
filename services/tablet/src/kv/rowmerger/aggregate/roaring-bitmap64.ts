import { type ArtLeaf, type ArtNode, artFind, artInsert, artLeaves, KEY_BYTES } from './roaring64-art.js'
import { readArtNode, writeArtNode } from './roaring64-art-codec.js'
import {
  type Container64,
  containerOf,
  containerValues,
  readContainer,
  runOptimized,
  unionContainers,
  writeContainer,
} from './roaring64-containers.js'
import { corrupt64, Roaring64Writer, RoaringReader } from './roaring64-io.js'

/**
 * Fluss's `rbm64` values: a `Roaring64Bitmap` of RoaringBitmap 1.3.0 (the version Fluss 0.9.1
 * ships), serialized by `runOptimize()` then `serialize(DataOutput)` and read back with
 * `deserialize(ByteBuffer)`. This is the library's ART-based 64-bit format, not the portable one:
 *
 *   byte     0 = empty bitmap (nothing follows), 1 = not empty
 *   int64    number of keys (48-bit high parts)
 *   ...      the ART nodes (roaring64-art-codec.ts)
 *   int32    number of container arrays (1)
 *   byte     0xFE (not trimmed), int32 array length (its capacity, grown by half each time)
 *   ...      per array slot: 0 (empty), or 1, the container kind, its int32 cardinality and body
 *   int64    number of containers; int32 index of the current array (0); int32 last slot used
 *
 * Every integer is little-endian. Slots, node layouts and container kinds record how the bitmap
 * was built, so the aggregation replays Java's `deserialize`, `or`, `runOptimize`, `serialize`
 * step by step and writes the bytes a Fluss server would write for the same two inputs.
 */
export interface Bitmap64 {
  root: ArtNode | null
  /** Java's container array: its length is the capacity it was grown to. */
  slots: (Container64 | null)[]
  /** The slot handed out last (Java's `secondLevelIdx`). */
  lastSlot: number
}

const NOT_EMPTY = 1
const NOT_TRIMMED = 0xfe

export const emptyBitmap64 = (): Bitmap64 => ({ root: null, slots: [], lastSlot: 0 })

/** Parses a serialized Roaring64Bitmap; malformed bytes are INVALID_REQUEST. */
export function deserializeBitmap64(bytes: Uint8Array): Bitmap64 {
  const r = new RoaringReader(bytes)
  const tag = r.u8('empty tag')
  if (tag === 0 && r.remaining === 0) return emptyBitmap64()
  if (tag !== NOT_EMPTY) throw corrupt64(tag === 0 ? 'bytes follow the empty tag' : `unknown tag ${tag}`)
  const keyCount = r.i64('key count')
  const leaves: ArtLeaf[] = []
  const root = readArtNode(r, 0, new Uint8Array(KEY_BYTES), leaves)
  if (keyCount !== BigInt(leaves.length)) throw corrupt64(`key count ${keyCount} but ${leaves.length} keys`)
  const { slots, lastSlot } = readContainerArray(r)
  if (r.remaining !== 0) throw corrupt64(`${r.remaining} bytes follow the bitmap`)
  const referenced = new Set<number>()
  for (const leaf of leaves) {
    if ((slots[leaf.slot] ?? null) === null || referenced.has(leaf.slot)) {
      throw corrupt64(`key container index ${leaf.slot} is empty or shared`)
    }
    referenced.add(leaf.slot)
  }
  if (slots.filter(s => s !== null).length !== referenced.size) throw corrupt64('containers without a key')
  return { root, slots, lastSlot }
}

function readContainerArray(r: RoaringReader): { slots: (Container64 | null)[]; lastSlot: number } {
  const arrays = r.i32('container array count')
  if (arrays !== 1) throw corrupt64(`${arrays} container arrays`)
  r.u8('trim mark')
  const capacity = r.i32('container array length')
  if (capacity < 1 || capacity > r.remaining) throw corrupt64(`container array length ${capacity}`)
  const slots: (Container64 | null)[] = []
  for (let i = 0; i < capacity; i++) {
    const tag = r.u8('container tag')
    if (tag === 0) slots.push(null)
    else if (tag === 1) slots.push(readContainer(r, r.u8('container type'), r.i32('container cardinality')))
    else throw corrupt64(`container tag ${tag}`)
  }
  const count = r.i64('container count')
  const arrayIndex = r.i32('current container array')
  const lastSlot = r.i32('last container slot')
  if (count !== BigInt(slots.filter(s => s !== null).length)) throw corrupt64(`container count ${count}`)
  if (
    arrayIndex !== 0 ||
    lastSlot < 0 ||
    lastSlot >= capacity ||
    slots.slice(lastSlot + 1).some(s => s !== null)
  ) {
    throw corrupt64(`container array position ${arrayIndex}/${lastSlot}`)
  }
  return { slots, lastSlot }
}

/** Serializes as Fluss does: run-optimizes the containers (in place), then writes them. */
export function serializeBitmap64(bitmap: Bitmap64): Buffer {
  if (bitmap.root === null) return Buffer.from([0])
  bitmap.slots = bitmap.slots.map(s => (s === null ? null : runOptimized(s)))
  const w = new Roaring64Writer()
  w.u8(NOT_EMPTY)
  w.i64(BigInt(artLeaves(bitmap.root).length))
  writeArtNode(w, bitmap.root)
  w.i32(1)
  w.u8(NOT_TRIMMED)
  w.i32(bitmap.slots.length)
  for (const slot of bitmap.slots) {
    w.u8(slot === null ? 0 : 1)
    if (slot !== null) writeContainer(w, slot)
  }
  w.i64(BigInt(bitmap.slots.filter(s => s !== null).length))
  w.i32(0)
  w.i32(bitmap.lastSlot)
  return w.finish()
}

/** Java's `Containers.addContainer`: the next slot, growing the array by half when full. */
function addContainer(bitmap: Bitmap64, container: Container64): number {
  if (bitmap.slots.length === 0) {
    bitmap.slots = [container]
    bitmap.lastSlot = 0
    return 0
  }
  const slot = bitmap.lastSlot + 1
  const capacity = bitmap.slots.length
  if (slot >= capacity) {
    const grown = Math.max(capacity + (capacity >> 1), slot + 1)
    for (let i = capacity; i < grown; i++) bitmap.slots.push(null)
  }
  bitmap.slots[slot] = container
  bitmap.lastSlot = slot
  return slot
}

/** Java's `Roaring64Bitmap.or`: `other`'s keys in ascending order, unioned into `target`. */
export function orInPlace64(target: Bitmap64, other: Bitmap64): void {
  for (const leaf of artLeaves(other.root)) {
    const container = other.slots[leaf.slot] as Container64
    const slot = artFind(target.root, leaf.key)
    if (slot >= 0) {
      target.slots[slot] = unionContainers(target.slots[slot] as Container64, container)
    } else {
      const added = addContainer(target, container)
      target.root = artInsert(target.root, leaf.key.slice(), 0, added)
    }
  }
}

/** rbm64 aggregation: the serialized OR of two serialized bitmaps, as Fluss computes it. */
export function orSerializedBitmap64(acc: Uint8Array, input: Uint8Array): Buffer {
  const merged = deserializeBitmap64(acc)
  orInPlace64(merged, deserializeBitmap64(input))
  return serializeBitmap64(merged)
}

function keyBytes(high: bigint): Uint8Array {
  const key = new Uint8Array(KEY_BYTES)
  for (let i = 0; i < KEY_BYTES; i++) key[i] = Number((high >> BigInt(8 * (KEY_BYTES - 1 - i))) & 0xffn)
  return key
}

/**
 * A bitmap as `Roaring64Bitmap.addLong` builds it from `values` in this order (tests, tools);
 * values are taken as 64-bit two's complement, so -1 is 2^64 - 1.
 */
export function bitmap64Of(values: Iterable<bigint | number>): Bitmap64 {
  const byKey = new Map<bigint, Set<number>>()
  for (const value of values) {
    const v = BigInt.asUintN(64, BigInt(value))
    const high = v >> 16n
    const lows = byKey.get(high) ?? new Set<number>()
    byKey.set(high, lows)
    lows.add(Number(v & 0xffffn))
  }
  const bitmap = emptyBitmap64()
  for (const [high, lows] of byKey) {
    const slot = addContainer(bitmap, containerOf(Uint16Array.from(lows).sort()))
    bitmap.root = artInsert(bitmap.root, keyBytes(high), 0, slot)
  }
  return bitmap
}

/** The values of a bitmap in unsigned order, as unsigned 64-bit integers (tests, tools). */
export function bitmap64Values(bitmap: Bitmap64): bigint[] {
  const values: bigint[] = []
  for (const leaf of artLeaves(bitmap.root)) {
    const high = leaf.key.reduce((acc, b) => (acc << 8n) | BigInt(b), 0n) << 16n
    for (const low of containerValues(bitmap.slots[leaf.slot] as Container64)) values.push(high | BigInt(low))
  }
  return values
}
