import { describe, expect, it } from 'vitest'
import { encodeSuccessResponse } from './frame.js'
import { LookupResponse, type LookupResponseInit } from './generated/fluss-api.js'
import { LookupResponseDirect } from './lookup-response-codec.js'
import { MessageWriter } from './message-codec.js'

const bytes = (n: number, fill = 7) => Buffer.alloc(n, fill)

/** The encoding through a MessageWriter (big values are chunks of their own), as one buffer. */
function viaWriter(encode: (w: MessageWriter) => void): Buffer {
  const writer = new MessageWriter()
  encode(writer)
  return Buffer.concat(writer.chunks())
}

const messages: Record<string, LookupResponseInit> = {
  empty: {},
  'no buckets': { bucketsResp: [] },
  'values, misses and an empty value': {
    bucketsResp: [
      { bucketId: 0, values: [{ values: bytes(1035) }, { values: null }, { values: Buffer.alloc(0) }, {}] },
      { partitionId: null, bucketId: 3, values: [{ values: bytes(1) }] },
    ],
  },
  'partition ids up to 2^53 - 1': {
    bucketsResp: [
      { partitionId: 0, bucketId: 1, values: [] },
      { partitionId: 300, bucketId: 127, values: [{ values: bytes(200) }] },
      { partitionId: Number.MAX_SAFE_INTEGER, bucketId: 128, values: [{ values: bytes(16_383) }] },
    ],
  },
  'errors with negative codes and non-ASCII messages': {
    bucketsResp: [
      { bucketId: 2, errorCode: 7, errorMessage: 'Leader not local for bucket 2' },
      { bucketId: 5, errorCode: -1, errorMessage: 'ünïcødé ✓ 𝄞 \ud800 lone surrogate' },
      { bucketId: -3, errorCode: 0, errorMessage: '' },
    ],
  },
  'values spliced by the writer (16 KiB and more)': {
    bucketsResp: [{ bucketId: 9, values: [{ values: bytes(16 * 1024, 1) }, { values: bytes(20_000, 2) }] }],
  },
}

describe('LookupResponseDirect', () => {
  for (const [name, message] of Object.entries(messages)) {
    it(`encodes the generic encoder's bytes: ${name}`, () => {
      const expected = viaWriter(w => LookupResponse.encodeTo(message, w))
      expect(viaWriter(w => LookupResponseDirect.encodeTo(message, w))).toEqual(expected)
      expect(LookupResponseDirect.encode(message)).toEqual(LookupResponse.encode(message))
      expect(LookupResponseDirect.decode(expected)).toEqual(LookupResponse.decode(expected))
    })
  }

  it('gives the same response frame as the generic encoder', () => {
    const message = messages['values, misses and an empty value']
    const frame = (t: typeof LookupResponse) => Buffer.concat(encodeSuccessResponse(42, t, message))
    expect(frame(LookupResponseDirect)).toEqual(frame(LookupResponse))
  })

  it('round-trips through decode', () => {
    const message = messages['partition ids up to 2^53 - 1']
    const decoded = LookupResponseDirect.decode(LookupResponseDirect.encode(message))
    expect(
      decoded.bucketsResp.map(b => [b.partitionId, b.bucketId, b.values.map(v => v.values?.length)]),
    ).toEqual([
      [0, 1, []],
      [300, 127, [200]],
      [Number.MAX_SAFE_INTEGER, 128, [16_383]],
    ])
  })

  it('keeps unknown fields of decoded messages (generic path)', () => {
    // A bucket carrying an unknown field 15 (varint 1) after its bucket id.
    const withUnknown = Buffer.from([0x0a, 0x04, 0x10, 0x02, 0x78, 0x01])
    const decoded = LookupResponse.decode(withUnknown)
    expect(LookupResponseDirect.encode(decoded)).toEqual(LookupResponse.encode(decoded))
  })

  it('refuses int64 partition ids beyond 2^53 like the generic encoder', () => {
    const message = { bucketsResp: [{ partitionId: 2 ** 60, bucketId: 0 }] }
    expect(() => LookupResponse.encode(message)).toThrow(/safe integer/)
    expect(() => LookupResponseDirect.encode(message)).toThrow(/safe integer/)
  })

  it('rejects corrupt bytes on decode with CORRUPT_MESSAGE', () => {
    expect(() => LookupResponseDirect.decode(Buffer.from([0x0a, 0x05, 0x10]))).toThrow(
      expect.objectContaining({ errorName: 'CORRUPT_MESSAGE' }),
    )
  })
})
