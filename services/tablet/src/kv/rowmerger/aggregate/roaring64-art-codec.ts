import {
  type ArtInner,
  type ArtLeaf,
  type ArtNode,
  childEntries,
  EMPTY_CHILD,
  KEY_BYTES,
} from './roaring64-art.js'
import { corrupt64, type Roaring64Writer, type RoaringReader } from './roaring64-io.js'

/**
 * Serialized ART nodes (RoaringBitmap 1.3.0 `Node.serialize` through a little-endian stream),
 * written depth-first, each inner node before its children in ascending key order:
 *
 * header: node type (Node4 0, Node16 1, Node48 2, Node256 3, leaf 4), uint16 child count,
 *         prefix length byte, prefix bytes
 * Node4:  its 4 key bytes as one little-endian int whose most significant byte is position 0,
 *         so the bytes appear as positions 3, 2, 1, 0
 * Node16: its 16 key bytes as two such longs (positions 7..0, then 15..8)
 * Node48: the 256-byte key -> slot index as 32 such longs (0xFF = no child)
 * Node256: a 32-byte little-endian bitset of the key bytes present
 * leaf:   the 6 key bytes, then the container index as an int64
 */

const NODE_CODES = { node4: 0, node16: 1, node48: 2, node256: 3, leaf: 4 } as const
const CAPACITY = { node4: 4, node16: 16, node48: 48, node256: 256 } as const
const MAX_SLOT = 0x7fffffff

/** Reads the subtree at `depth`; `path` holds the key bytes above it; leaves are collected. */
export function readArtNode(r: RoaringReader, depth: number, path: Uint8Array, leaves: ArtLeaf[]): ArtNode {
  const code = r.u8('node type')
  const count = r.u16('node child count')
  const prefixLength = r.u8('node prefix length')
  if (prefixLength > 127) throw corrupt64(`negative prefix length ${prefixLength - 256}`)
  const prefix = r.bytes(prefixLength, 'node prefix')
  if (code === NODE_CODES.leaf) return readLeaf(r, depth, path, count, prefix, leaves)
  if (depth + prefixLength >= KEY_BYTES)
    throw corrupt64(`inner node prefix runs past the ${KEY_BYTES}-byte key`)
  const { node, keys } = readInnerBody(r, code, count, prefix)
  path.set(prefix, depth)
  const childDepth = depth + prefixLength
  for (const k of keys) {
    path[childDepth] = k
    const child = readArtNode(r, childDepth + 1, path, leaves)
    if (node.type === 'node48') node.slots[node.index[k]] = child
    else if (node.type === 'node256') node.children[k] = child
    else node.children.push(child)
  }
  return node
}

function readLeaf(
  r: RoaringReader,
  depth: number,
  path: Uint8Array,
  count: number,
  prefix: Uint8Array,
  leaves: ArtLeaf[],
): ArtLeaf {
  if (count !== 0) throw corrupt64(`leaf with child count ${count}`)
  if (depth + prefix.length > KEY_BYTES) throw corrupt64('leaf prefix runs past the key')
  const key = r.bytes(KEY_BYTES, 'leaf key')
  const containerIndex = r.i64('leaf container index')
  if (containerIndex < 0n || containerIndex > BigInt(MAX_SLOT)) {
    throw corrupt64(`container index ${containerIndex} is outside the first container array`)
  }
  for (let i = 0; i < depth; i++)
    if (key[i] !== path[i]) throw corrupt64('a leaf key does not match its tree path')
  const leaf: ArtLeaf = { type: 'leaf', prefix, key, slot: Number(containerIndex) }
  leaves.push(leaf)
  return leaf
}

/** An inner node without its children, and the key bytes of the children that follow it. */
function readInnerBody(
  r: RoaringReader,
  code: number,
  count: number,
  prefix: Uint8Array,
): { node: ArtInner; keys: number[] } {
  if (code === NODE_CODES.node4 || code === NODE_CODES.node16) {
    const width = code === NODE_CODES.node4 ? 4 : 16
    const raw = r.bytes(width, 'node keys')
    const keys = new Uint8Array(width)
    for (let i = 0; i < width; i++) keys[i] = raw[(i & ~7) + Math.min(width, 8) - 1 - (i & 7)]
    const type = width === 4 ? 'node4' : 'node16'
    checkCount(type, count, count)
    for (let i = 1; i < count; i++)
      if (keys[i] <= keys[i - 1]) throw corrupt64(`${type} keys are not increasing`)
    return { node: { type, prefix, count, keys, children: [] }, keys: [...keys.subarray(0, count)] }
  }
  if (code === NODE_CODES.node48) {
    const raw = r.bytes(256, 'node48 index')
    const index = new Uint8Array(256)
    const keys: number[] = []
    const used = new Set<number>()
    for (let k = 0; k < 256; k++) {
      index[k] = raw[(k & ~7) + 7 - (k & 7)]
      if (index[k] === EMPTY_CHILD) continue
      if (index[k] >= 48 || used.has(index[k]))
        throw corrupt64(`node48 child index ${index[k]} is out of range or repeated`)
      used.add(index[k])
      keys.push(k)
    }
    checkCount('node48', count, keys.length)
    return { node: { type: 'node48', prefix, count, index, slots: new Array(48).fill(undefined) }, keys }
  }
  if (code === NODE_CODES.node256) {
    const raw = r.bytes(32, 'node256 bitset')
    const keys: number[] = []
    for (let k = 0; k < 256; k++) if ((raw[k >>> 3] & (1 << (k & 7))) !== 0) keys.push(k)
    checkCount('node256', count, keys.length)
    return { node: { type: 'node256', prefix, count, children: new Array(256).fill(undefined) }, keys }
  }
  throw corrupt64(`unknown node type ${code}`)
}

function checkCount(type: ArtInner['type'], count: number, present: number): void {
  if (count < 1 || count > CAPACITY[type]) throw corrupt64(`${type} with ${count} children`)
  if (present !== count) throw corrupt64(`${type} lists ${present} children, not ${count}`)
}

/** Writes the subtree rooted at `node`. */
export function writeArtNode(w: Roaring64Writer, node: ArtNode): void {
  w.u8(NODE_CODES[node.type])
  w.u16(node.type === 'leaf' ? 0 : node.count)
  w.u8(node.prefix.length)
  w.bytes(node.prefix)
  if (node.type === 'leaf') {
    w.bytes(node.key)
    w.i64(BigInt(node.slot))
    return
  }
  if (node.type === 'node4') {
    for (let i = 3; i >= 0; i--) w.u8(node.keys[i])
  } else if (node.type === 'node16') {
    for (let i = 7; i >= 0; i--) w.u8(node.keys[i])
    for (let i = 15; i >= 8; i--) w.u8(node.keys[i])
  } else if (node.type === 'node48') {
    for (let k = 0; k < 256; k++) w.u8(node.index[(k & ~7) + 7 - (k & 7)])
  } else {
    for (let byte = 0; byte < 32; byte++) {
      let bits = 0
      for (let b = 0; b < 8; b++) if (node.children[8 * byte + b] !== undefined) bits |= 1 << b
      w.u8(bits)
    }
  }
  for (const [, child] of childEntries(node)) writeArtNode(w, child)
}
