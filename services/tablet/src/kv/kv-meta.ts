import { FlussError } from '@sluice/core/errors'

/**
 * Identifies the changelog batch that ends a flushed prefix, so that a restart can tell whether the
 * log still holds the same batch there (a follower truncation followed by new appends would put a
 * different batch at the same offsets). The CRC covers the batch content after the offset, the
 * commit timestamp tells apart two otherwise identical batches.
 */
export interface BatchAnchor {
  readonly baseOffset: number
  readonly lastOffset: number
  readonly crc: number
  readonly commitTimestamp: number
}

/**
 * What the KV store holds, stored under the reserved empty key in the same write batch as the data:
 * every changelog record below `flushedOffset` is applied; `anchor` is the batch holding
 * `flushedOffset - 1` (null when `flushedOffset` is 0); `rowCount` is -1 when not maintained.
 */
export interface KvMeta {
  readonly flushedOffset: number
  readonly rowCount: number
  readonly anchor: BatchAnchor | null
}

/** The reserved key of the meta record (primary keys always encode to at least one byte). */
export const META_KEY = Buffer.alloc(0)

const MAGIC = 0x53_4b_56_31 // 'SKV1'
const SIZE = 4 + 8 + 8 + 1 + 8 + 8 + 4 + 8

export function encodeKvMeta(meta: KvMeta): Buffer {
  const out = Buffer.alloc(SIZE)
  out.writeUInt32BE(MAGIC, 0)
  out.writeBigInt64LE(BigInt(meta.flushedOffset), 4)
  out.writeBigInt64LE(BigInt(meta.rowCount), 12)
  const anchor = meta.anchor
  out.writeUInt8(anchor === null ? 0 : 1, 20)
  if (anchor !== null) {
    out.writeBigInt64LE(BigInt(anchor.baseOffset), 21)
    out.writeBigInt64LE(BigInt(anchor.lastOffset), 29)
    out.writeUInt32LE(anchor.crc, 37)
    out.writeBigInt64LE(BigInt(anchor.commitTimestamp), 41)
  }
  return out
}

export function decodeKvMeta(bytes: Buffer): KvMeta {
  if (bytes.length !== SIZE || bytes.readUInt32BE(0) !== MAGIC) {
    throw new FlussError('KV_STORAGE_EXCEPTION', `unreadable KV meta record of ${bytes.length} bytes`)
  }
  const anchor: BatchAnchor | null =
    bytes.readUInt8(20) === 0
      ? null
      : {
          baseOffset: Number(bytes.readBigInt64LE(21)),
          lastOffset: Number(bytes.readBigInt64LE(29)),
          crc: bytes.readUInt32LE(37),
          commitTimestamp: Number(bytes.readBigInt64LE(41)),
        }
  return {
    flushedOffset: Number(bytes.readBigInt64LE(4)),
    rowCount: Number(bytes.readBigInt64LE(12)),
    anchor,
  }
}
