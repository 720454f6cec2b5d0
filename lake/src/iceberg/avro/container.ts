import { randomBytes } from 'node:crypto'
import { deflateRawSync, inflateRawSync } from 'node:zlib'
import { FlussError } from '@sluice/core/errors'
import avro from 'avsc'

/**
 * Avro object container files, synchronously, with 64-bit longs kept exact: every `long` decodes
 * to a bigint and encodes from a bigint or a safe integer. Iceberg manifests and manifest lists
 * carry Java longs (snapshot ids above 2^53 from other writers), which avsc's default long type
 * refuses to decode.
 *
 * The writer schema is written to the header exactly as given (with Iceberg's `field-id` and
 * `element-id` attributes, which avsc's own serializer drops).
 */

export type AvroSchema = avro.Schema

const MAGIC = Buffer.from([0x4f, 0x62, 0x6a, 0x01])
const SYNC_BYTES = 16
/** Records per block; Java writes blocks of about this many records too. */
const BLOCK_RECORDS = 4096

const BIG_LONG = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint | number) => {
    const buf = Buffer.alloc(8)
    buf.writeBigInt64LE(BigInt(n))
    return buf
  },
  fromJSON: (v: unknown) => BigInt(v as number),
  toJSON: (n: bigint) => Number(n),
  isValid: (n: unknown) => typeof n === 'bigint' || (typeof n === 'number' && Number.isSafeInteger(n)),
  compare: (a: bigint, b: bigint) => (a < b ? -1 : a > b ? 1 : 0),
})

const META_TYPE = avro.Type.forSchema({ type: 'map', values: 'bytes' })
const LONG_TYPE = avro.Type.forSchema('long')

function corrupt(message: string): FlussError {
  return new FlussError('CORRUPT_MESSAGE', message)
}

/** `{"type":"long"}` written as an object bypasses avsc's registry; reduce such types to `"long"`. */
function withPlainLongs(type: unknown): unknown {
  if (Array.isArray(type)) return type.map(withPlainLongs)
  if (typeof type !== 'object' || type === null) return type
  const t = type as Record<string, unknown>
  if (t.type === 'long') return 'long'
  const out: Record<string, unknown> = { ...t }
  if (typeof t.type === 'object') out.type = withPlainLongs(t.type)
  if (Array.isArray(t.fields)) {
    out.fields = t.fields.map(f => ({
      ...(f as object),
      type: withPlainLongs((f as { type: unknown }).type),
    }))
  }
  if (t.items !== undefined) out.items = withPlainLongs(t.items)
  if (t.values !== undefined) out.values = withPlainLongs(t.values)
  return out
}

/** An avsc type for `schema` whose longs are exact bigints. */
export function avroType(schema: AvroSchema): avro.Type {
  return avro.Type.forSchema(withPlainLongs(schema) as AvroSchema, {
    registry: { long: BIG_LONG } as never,
    wrapUnions: false,
  })
}

export interface AvroWriteOptions {
  readonly codec?: 'deflate' | 'null'
  /** File key/value metadata (Iceberg's `schema`, `partition-spec`, `format-version`, ...). */
  readonly metadata?: Readonly<Record<string, string>>
}

/** Encodes records into one Avro object container file. */
export function writeAvroFile(
  schema: AvroSchema,
  records: readonly unknown[],
  options: AvroWriteOptions = {},
): Uint8Array {
  const type = avroType(schema)
  const codec = options.codec ?? 'deflate'
  const meta: Record<string, Buffer> = {}
  for (const [k, v] of Object.entries(options.metadata ?? {})) meta[k] = Buffer.from(v)
  meta['avro.schema'] = Buffer.from(JSON.stringify(schema))
  meta['avro.codec'] = Buffer.from(codec)
  const sync = randomBytes(SYNC_BYTES)
  const parts: Buffer[] = [MAGIC, META_TYPE.toBuffer(meta), sync]
  for (let start = 0; start < records.length; start += BLOCK_RECORDS) {
    const block = records.slice(start, start + BLOCK_RECORDS)
    const raw = Buffer.concat(block.map(r => type.toBuffer(r)))
    const data = codec === 'deflate' ? deflateRawSync(raw) : raw
    parts.push(LONG_TYPE.toBuffer(block.length), LONG_TYPE.toBuffer(data.length), data, sync)
  }
  return Buffer.concat(parts)
}

export interface AvroFile {
  /** The writer schema, parsed from the header (custom attributes included). */
  readonly schema: AvroSchema
  readonly metadata: Readonly<Record<string, string>>
  readonly records: readonly unknown[]
}

function decodeAt<T>(type: avro.Type, buf: Buffer, pos: number, what: string): { value: T; offset: number } {
  const r = type.decode(buf, pos) as { value: T; offset: number }
  if (r.offset < 0) throw corrupt(`Avro file is truncated in its ${what}`)
  return r
}

/** Reads a whole Avro object container file; CORRUPT_MESSAGE on malformed input. */
export function readAvroFile(bytes: Uint8Array): AvroFile {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC)) throw corrupt('not an Avro object container file')
  let header: { value: Record<string, Buffer>; offset: number }
  try {
    header = decodeAt(META_TYPE, buf, 4, 'header')
  } catch (e) {
    throw e instanceof FlussError ? e : corrupt(`malformed Avro header: ${(e as Error).message}`)
  }
  const metadata: Record<string, string> = {}
  for (const [k, v] of Object.entries(header.value)) metadata[k] = v.toString('utf8')
  const sync = buf.subarray(header.offset, header.offset + SYNC_BYTES)
  if (sync.length !== SYNC_BYTES) throw corrupt('Avro file is truncated in its header')
  let schema: AvroSchema
  let type: avro.Type
  try {
    schema = JSON.parse(metadata['avro.schema'] ?? '') as AvroSchema
    type = avroType(schema)
  } catch (e) {
    throw corrupt(`Avro file has an invalid schema: ${(e as Error).message}`)
  }
  const codec = metadata['avro.codec'] ?? 'null'
  if (codec !== 'null' && codec !== 'deflate') throw corrupt(`unsupported Avro codec '${codec}'`)
  const records = readBlocks(buf, header.offset + SYNC_BYTES, sync, codec, type)
  return { schema, metadata, records }
}

function readBlocks(buf: Buffer, start: number, sync: Buffer, codec: string, type: avro.Type): unknown[] {
  const records: unknown[] = []
  let pos = start
  while (pos < buf.length) {
    const count = decodeAt<number>(LONG_TYPE, buf, pos, 'block header')
    const size = decodeAt<number>(LONG_TYPE, buf, count.offset, 'block header')
    const end = size.offset + size.value
    if (count.value < 0 || size.value < 0 || end + SYNC_BYTES > buf.length)
      throw corrupt('Avro block is truncated')
    if (!buf.subarray(end, end + SYNC_BYTES).equals(sync)) throw corrupt('Avro block sync marker mismatch')
    let data = buf.subarray(size.offset, end)
    try {
      if (codec === 'deflate') data = inflateRawSync(data)
      let at = 0
      for (let i = 0; i < count.value; i++) {
        const r = decodeAt<unknown>(type, data, at, 'records')
        records.push(r.value)
        at = r.offset
      }
    } catch (e) {
      throw e instanceof FlussError ? e : corrupt(`malformed Avro block: ${(e as Error).message}`)
    }
    pos = end + SYNC_BYTES
  }
  return records
}
