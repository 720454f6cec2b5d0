/**
 * The adaptive radix tree (ART) over the 48-bit high parts of a Roaring64Bitmap (RoaringBitmap
 * 1.3.0, `org.roaringbitmap.art`): keys are 6 big-endian bytes; a leaf holds the slot of its
 * container. Inner nodes keep a compressed path prefix and grow 4 -> 16 -> 48 -> 256 children.
 *
 * The serialized form records node kinds, the raw key bytes of Node4/Node16 (including unused
 * positions), Node48's slot layout and each leaf's slot, all of which depend on the order in which
 * keys were inserted. Insertion therefore follows Java's algorithm step by step, so that merging
 * into a deserialized tree gives the bytes Java would give.
 */

export const KEY_BYTES = 6
export const EMPTY_CHILD = 0xff

export interface ArtLeaf {
  readonly type: 'leaf'
  /** A leaf left behind by a shrinking Node4 (after removals) carries that node's path bytes. */
  prefix: Uint8Array
  readonly key: Uint8Array
  readonly slot: number
}

interface Inner {
  prefix: Uint8Array
  count: number
}

export interface ArtNode4 extends Inner {
  readonly type: 'node4'
  readonly keys: Uint8Array
  readonly children: ArtNode[]
}

export interface ArtNode16 extends Inner {
  readonly type: 'node16'
  readonly keys: Uint8Array
  readonly children: ArtNode[]
}

export interface ArtNode48 extends Inner {
  readonly type: 'node48'
  /** Key byte -> slot in `slots`, EMPTY_CHILD when absent. */
  readonly index: Uint8Array
  readonly slots: (ArtNode | undefined)[]
}

export interface ArtNode256 extends Inner {
  readonly type: 'node256'
  readonly children: (ArtNode | undefined)[]
}

export type ArtInner = ArtNode4 | ArtNode16 | ArtNode48 | ArtNode256
export type ArtNode = ArtLeaf | ArtInner

export const newLeaf = (key: Uint8Array, slot: number): ArtLeaf => ({
  type: 'leaf',
  prefix: new Uint8Array(0),
  key,
  slot,
})

export const newNode4 = (prefix: Uint8Array): ArtNode4 => ({
  type: 'node4',
  prefix,
  count: 0,
  keys: new Uint8Array(4),
  children: [],
})

/** The position of the child under key byte `k`, or -1. Node48 and Node256 positions are key bytes. */
function childPos(node: ArtInner, k: number): number {
  if (node.type === 'node4' || node.type === 'node16') {
    for (let i = 0; i < node.count; i++) if (node.keys[i] === k) return i
    return -1
  }
  if (node.type === 'node48') return node.index[k] === EMPTY_CHILD ? -1 : k
  return node.children[k] === undefined ? -1 : k
}

function childAt(node: ArtInner, pos: number): ArtNode {
  if (node.type === 'node48') return node.slots[node.index[pos]] as ArtNode
  return node.children[pos] as ArtNode
}

function replaceChild(node: ArtInner, pos: number, child: ArtNode): void {
  if (node.type === 'node48') node.slots[node.index[pos]] = child
  else node.children[pos] = child
}

/** The children of an inner node with their key bytes, in ascending key order. */
export function childEntries(node: ArtInner): [number, ArtNode][] {
  const out: [number, ArtNode][] = []
  if (node.type === 'node4' || node.type === 'node16') {
    for (let i = 0; i < node.count; i++) out.push([node.keys[i], node.children[i]])
  } else {
    for (let k = 0; k < 256; k++) if (childPos(node, k) >= 0) out.push([k, childAt(node, k)])
  }
  return out
}

/** Insertion sort of the first `count` key bytes, moving the children along. */
function sortSmall(keys: Uint8Array, children: ArtNode[], count: number): void {
  for (let i = 1; i < count; i++) {
    const k = keys[i]
    const child = children[i]
    let j = i - 1
    while (j >= 0 && keys[j] > k) {
      keys[j + 1] = keys[j]
      children[j + 1] = children[j]
      j--
    }
    keys[j + 1] = k
    children[j + 1] = child
  }
}

/** Adds a child under key byte `k`; returns the node, or the larger node it grew into. */
function insertChild(node: ArtInner, child: ArtNode, k: number): ArtInner {
  if (node.type === 'node4' || node.type === 'node16') {
    const capacity = node.type === 'node4' ? 4 : 16
    if (node.count < capacity) {
      node.keys[node.count] = k
      node.children[node.count] = child
      node.count++
      sortSmall(node.keys, node.children, node.count)
      return node
    }
    return insertChild(node.type === 'node4' ? grow16(node) : grow48(node), child, k)
  }
  if (node.type === 'node48') {
    if (node.count === 48) return insertChild(grow256(node), child, k)
    let pos = node.count
    if (node.slots[pos] !== undefined) pos = node.slots.indexOf(undefined)
    node.slots[pos] = child
    node.index[k] = pos
    node.count++
    return node
  }
  node.count++
  node.children[k] = child
  return node
}

function grow16(node: ArtNode4): ArtNode16 {
  const keys = new Uint8Array(16)
  keys.set(node.keys)
  return { type: 'node16', prefix: node.prefix.slice(), count: 4, keys, children: node.children.slice(0, 4) }
}

function grow48(node: ArtNode16): ArtNode48 {
  const index = new Uint8Array(256).fill(EMPTY_CHILD)
  const slots: (ArtNode | undefined)[] = new Array(48).fill(undefined)
  for (let i = 0; i < node.count; i++) {
    index[node.keys[i]] = i
    slots[i] = node.children[i]
  }
  return { type: 'node48', prefix: node.prefix.slice(), count: node.count, index, slots }
}

function grow256(node: ArtNode48): ArtNode256 {
  const children: (ArtNode | undefined)[] = new Array(256).fill(undefined)
  for (const [k, child] of childEntries(node)) children[k] = child
  return { type: 'node256', prefix: node.prefix.slice(), count: node.count, children }
}

/** Inserts a key that is not in the tree (Java's `Art.insert`); returns the new subtree root. */
export function artInsert(node: ArtNode | null, key: Uint8Array, depth: number, slot: number): ArtNode {
  if (node === null) return newLeaf(key, slot)
  if (node.type === 'leaf') {
    let common = 0
    while (depth + common < KEY_BYTES && node.key[depth + common] === key[depth + common]) common++
    node.prefix = new Uint8Array(0)
    const parent = newNode4(key.slice(depth, depth + common))
    insertChild(parent, node, node.key[depth + common])
    insertChild(parent, newLeaf(key, slot), key[depth + common])
    return parent
  }
  const prefix = node.prefix
  if (prefix.length > 0) {
    let same = 0
    while (same < prefix.length && prefix[same] === key[depth + same]) same++
    if (same !== prefix.length) {
      const parent = newNode4(prefix.slice(0, same))
      insertChild(parent, node, prefix[same])
      node.prefix = prefix.slice(same + 1)
      insertChild(parent, newLeaf(key, slot), key[depth + same])
      return parent
    }
    depth += prefix.length
  }
  const pos = childPos(node, key[depth])
  if (pos < 0) return insertChild(node, newLeaf(key, slot), key[depth])
  const child = childAt(node, pos)
  const fresh = artInsert(child, key, depth + 1, slot)
  if (fresh !== child) replaceChild(node, pos, fresh)
  return node
}

/** The container slot of `key`, or -1 (Java's `Art.findByKey`). */
export function artFind(root: ArtNode | null, key: Uint8Array): number {
  let node = root
  let depth = 0
  while (node !== null) {
    if (node.type === 'leaf') {
      for (let i = depth; i < KEY_BYTES; i++) if (node.key[i] !== key[i]) return -1
      return node.slot
    }
    for (let i = 0; i < node.prefix.length; i++) if (node.prefix[i] !== key[depth + i]) return -1
    depth += node.prefix.length
    const pos = childPos(node, key[depth])
    if (pos < 0) return -1
    node = childAt(node, pos)
    depth++
  }
  return -1
}

/** The leaves in ascending (unsigned) key order. */
export function artLeaves(root: ArtNode | null): ArtLeaf[] {
  const out: ArtLeaf[] = []
  const visit = (node: ArtNode) => {
    if (node.type === 'leaf') out.push(node)
    else for (const [, child] of childEntries(node)) visit(child)
  }
  if (root !== null) visit(root)
  return out
}
