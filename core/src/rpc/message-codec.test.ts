import protobuf from 'protobufjs/minimal.js'
import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  FetchLogResponse,
  type FetchLogResponseInit,
  ListOffsetsRequest,
  MetadataRequest,
  PbProduceLogReqForBucket,
  ProduceLogRequest,
  type ProduceLogRequestInit,
} from './generated/fluss-api.js'
import { fluss } from './generated/fluss-api-runtime.js'
import { MessageWriter, SPLICE_MIN_BYTES } from './message-codec.js'

/** The same message encoded by the stock protobufjs writer (reference bytes). */
function referenceEncoding(name: string, message: unknown): Buffer {
  const cls = (
    fluss as unknown as Record<string, { encode(m: unknown, w: protobuf.Writer): protobuf.Writer }>
  )[name]
  return Buffer.from(cls.encode(message, protobuf.Writer.create()).finish())
}

function filled(length: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(length)
  for (let i = 0; i < length; i++) b[i] = (i * 31 + seed) & 0xff
  return b
}

function fetchResponse(recordLengths: number[]): FetchLogResponseInit {
  return {
    tablesResp: [
      {
        tableId: 7,
        bucketsResp: recordLengths.map((length, i) => ({
          bucketId: i,
          partitionId: i % 2 === 0 ? null : 2 ** 40 + i,
          highWatermark: 1000 + i,
          records: filled(length, i),
        })),
      },
    ],
  }
}

describe('MessageWriter', () => {
  // Lengths around the splice threshold and around varint boundaries of the enclosing messages.
  const cases = [
    [0],
    [10],
    [SPLICE_MIN_BYTES - 1],
    [SPLICE_MIN_BYTES],
    [1 << 20],
    [SPLICE_MIN_BYTES, 5, 1 << 17],
  ]
  for (const lengths of cases) {
    it(`produces the stock encoding with large bytes spliced (records ${lengths.join(', ')})`, () => {
      const message = fetchResponse(lengths)
      const writer = new MessageWriter()
      FetchLogResponse.encodeTo(message, writer)
      const chunks = writer.chunks()
      const joined = Buffer.concat(chunks)
      expect(joined.equals(referenceEncoding('FetchLogResponse', message))).toBe(true)
      expect(writer.byteLength).toBe(joined.length)
      expect(FetchLogResponse.encode(message).equals(joined)).toBe(true)
    })
  }

  it('references large records instead of copying them', () => {
    const records = filled(1 << 20, 3)
    const writer = new MessageWriter()
    ProduceLogRequest.encodeTo(
      { acks: -1, tableId: 1, timeoutMs: 5, bucketsReq: [{ bucketId: 0, records }] },
      writer,
    )
    expect(writer.chunks().some(c => c === records)).toBe(true)
  })

  it('rejects int64 values that are not safe integers', () => {
    const bad: ProduceLogRequestInit = { acks: 1, tableId: 2 ** 53, timeoutMs: 1 }
    expect(() => ProduceLogRequest.encode(bad)).toThrow(/not a safe integer/)
    expect(() => MetadataRequest.encode({ partitionsId: [1, 1.5] })).toThrow(/not a safe integer/)
  })
})

describe('MessageType.decode', () => {
  it('returns bytes fields as Buffer views into the input', () => {
    const encoded = FetchLogResponse.encode(fetchResponse([1 << 16, 3]))
    const decoded = FetchLogResponse.decode(encoded)
    const records = decoded.tablesResp[0].bucketsResp[0].records as Buffer
    expect(Buffer.isBuffer(records)).toBe(true)
    expect(records.buffer).toBe(encoded.buffer)
    expect(records.equals(filled(1 << 16, 0))).toBe(true)
    expect(decoded.tablesResp[0].bucketsResp[1].partitionId).toBe(2 ** 40 + 1)
    expect(decoded.tablesResp[0].bucketsResp[0].partitionId).toBeNull()
  })

  it('accepts a plain Uint8Array and still returns Buffer views', () => {
    const encoded = PbProduceLogReqForBucket.encode({ bucketId: 1, records: Buffer.from([1, 2, 3]) })
    const view = new Uint8Array(encoded.buffer, encoded.byteOffset, encoded.length)
    const decoded = PbProduceLogReqForBucket.decode(view)
    expect(Buffer.isBuffer(decoded.records)).toBe(true)
    expect([...decoded.records]).toEqual([1, 2, 3])
  })

  it('reads negative and large int64 values exactly', () => {
    const request = {
      followerServerId: -1,
      offsetType: 2,
      tableId: 2 ** 53 - 1,
      startTimestamp: -5,
      bucketId: [0, 1],
    }
    const decoded = ListOffsetsRequest.decode(ListOffsetsRequest.encode(request))
    expect(decoded.tableId).toBe(2 ** 53 - 1)
    expect(decoded.startTimestamp).toBe(-5)
    expect(decoded.followerServerId).toBe(-1)
  })

  it('rejects an int64 beyond 2^53 with CORRUPT_MESSAGE', () => {
    // ListOffsetsRequest{follower_server_id = 1, offset_type = 0, table_id = 2^60}
    const tableId = [0x18, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10]
    const error = captureError(() =>
      ListOffsetsRequest.decode(Buffer.from([0x08, 0x01, 0x10, 0x00, ...tableId])),
    )
    expect(error.code).toBe(3)
    expect(error.message).toMatch(/2\^53/)
  })

  it('rejects a message that lacks a required field with CORRUPT_MESSAGE', () => {
    // PbProduceLogReqForBucket with bucket_id only (records, field 3, missing)
    const error = captureError(() => PbProduceLogReqForBucket.decode(Buffer.from([0x10, 0x01])))
    expect(error.code).toBe(3)
    expect(error.message).toMatch(/records/)
  })

  it('rejects truncated input with CORRUPT_MESSAGE', () => {
    const encoded = PbProduceLogReqForBucket.encode({ bucketId: 1, records: Buffer.alloc(100) })
    for (const cut of [1, 3, 50, encoded.length - 1]) {
      expect(captureError(() => PbProduceLogReqForBucket.decode(encoded.subarray(0, cut))).code).toBe(3)
    }
  })
})

function captureError(fn: () => unknown): FlussError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    return e as FlussError
  }
  throw new Error('expected a FlussError')
}
