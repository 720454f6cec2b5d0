import {
  LookupResponse,
  type LookupResponseInit,
  type PbLookupRespForBucketInit,
  type PbValueInit,
} from './generated/fluss-api.js'
import { type MessageType, MessageWriter } from './message-codec.js'

/**
 * The LookupResponse message type with a direct encoder: the sizes of the nested messages are worked
 * out first, so every length prefix is written in place and each value is copied once (the generic
 * encoder forks each nested message and shifts its bytes when the length prefix takes more than a
 * byte, which for 1 KiB values means copying every value again per nesting level). The bytes are the
 * ones the generic encoder writes; messages carrying unknown fields (`$unknowns`) and decoding take
 * the generic path.
 */

const BUCKETS_RESP = (1 << 3) | 2
const PARTITION_ID = (1 << 3) | 0
const BUCKET_ID = (2 << 3) | 0
const ERROR_CODE = (3 << 3) | 0
const ERROR_MESSAGE = (4 << 3) | 2
const VALUES = (5 << 3) | 2
const VALUE_BYTES = (1 << 3) | 2

function varintSize(value: number): number {
  // Non-negative safe integers: 7 bits per byte.
  let size = 1
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) size++
  return size
}

/** int32 and int64 fields: negative values take ten bytes (sign-extended to 64 bits). */
const intSize = (value: number) => (value < 0 ? 10 : varintSize(value))

const hasUnknowns = (message: object) => Object.hasOwn(message, '$unknowns')

function valueSize(value: PbValueInit): number {
  const bytes = value.values
  return bytes === null || bytes === undefined ? 0 : 1 + varintSize(bytes.length) + bytes.length
}

function bucketSize(b: PbLookupRespForBucketInit): number {
  let size = 1 + intSize(b.bucketId)
  if (b.partitionId !== null && b.partitionId !== undefined) size += 1 + intSize(b.partitionId)
  if (b.errorCode !== null && b.errorCode !== undefined) size += 1 + intSize(b.errorCode)
  if (b.errorMessage !== null && b.errorMessage !== undefined) {
    const length = Buffer.byteLength(b.errorMessage, 'utf8')
    size += 1 + varintSize(length) + length
  }
  const values = b.values
  if (values !== undefined) {
    for (let i = 0; i < values.length; i++) {
      const inner = valueSize(values[i])
      size += 1 + varintSize(inner) + inner
    }
  }
  return size
}

function canEncodeDirectly(message: LookupResponseInit): boolean {
  if (hasUnknowns(message)) return false
  for (const b of message.bucketsResp ?? []) {
    if (hasUnknowns(b)) return false
    for (const v of b.values ?? []) if (hasUnknowns(v)) return false
  }
  return true
}

function encodeBucket(b: PbLookupRespForBucketInit, size: number, writer: MessageWriter): void {
  writer.uint32(BUCKETS_RESP).uint32(size)
  if (b.partitionId !== null && b.partitionId !== undefined) writer.uint32(PARTITION_ID).int64(b.partitionId)
  writer.uint32(BUCKET_ID).int32(b.bucketId)
  if (b.errorCode !== null && b.errorCode !== undefined) writer.uint32(ERROR_CODE).int32(b.errorCode)
  if (b.errorMessage !== null && b.errorMessage !== undefined) {
    writer.uint32(ERROR_MESSAGE).string(b.errorMessage)
  }
  const values = b.values
  if (values === undefined) return
  for (let i = 0; i < values.length; i++) {
    const bytes = values[i].values
    writer.uint32(VALUES).uint32(valueSize(values[i]))
    if (bytes !== null && bytes !== undefined) writer.uint32(VALUE_BYTES).bytes(bytes)
  }
}

interface WriterInternals {
  _reserve(n: number): void
}

function encodeTo(message: LookupResponseInit, writer: MessageWriter): void {
  if (!canEncodeDirectly(message)) {
    LookupResponse.encodeTo(message, writer)
    return
  }
  const buckets = message.bucketsResp ?? []
  const sizes = buckets.map(bucketSize)
  // One allocation for the whole message instead of doubling the writer's buffer as it fills.
  let total = 0
  for (const size of sizes) total += 1 + varintSize(size) + size
  ;(writer as unknown as WriterInternals)._reserve(total)
  for (let i = 0; i < buckets.length; i++) encodeBucket(buckets[i], sizes[i], writer)
}

export const LookupResponseDirect: MessageType<LookupResponse, LookupResponseInit> = {
  name: LookupResponse.name,
  encodeTo,
  encode(message: LookupResponseInit): Buffer {
    if (!canEncodeDirectly(message)) return LookupResponse.encode(message)
    const writer = new MessageWriter()
    encodeTo(message, writer)
    return writer.finish()
  },
  decode: bytes => LookupResponse.decode(bytes),
}
