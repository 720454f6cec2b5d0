import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  decodeErrorBody,
  encodeErrorResponse,
  encodeRequest,
  encodeServerFailure,
  encodeSuccessResponse,
  parseRequestFrame,
  parseResponseFrame,
} from './frame.js'
import { FrameDecoder } from './frame-decoder.js'
import { ApiVersionsRequest, ProduceLogRequest, TableExistsResponse } from './generated/fluss-api.js'

const join = (chunks: Buffer[]) => Buffer.concat(chunks)

function collect(decoder: FrameDecoder, chunks: Buffer[]): Buffer[] {
  const frames: Buffer[] = []
  for (const chunk of chunks) decoder.push(chunk, f => frames.push(Buffer.from(f)))
  return frames
}

function thrown(fn: () => unknown): FlussError {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(FlussError)
    return e as FlussError
  }
  throw new Error('expected a FlussError')
}

describe('frame encoding', () => {
  it('writes the request header big-endian before the body', () => {
    const message = { clientSoftwareName: 'fluss', clientSoftwareVersion: '0.1.0' }
    const frame = join(
      encodeRequest({ apiKey: 1000, apiVersion: 0, requestId: 0x01020304 }, ApiVersionsRequest, message),
    )
    const body = ApiVersionsRequest.encode(message)
    expect(frame.subarray(0, 12).toString('hex')).toBe(
      `${(8 + body.length).toString(16).padStart(8, '0')}03e8000001020304`,
    )
    expect(frame.subarray(12).equals(body)).toBe(true)
    const parsed = parseRequestFrame(frame.subarray(4))
    expect(parsed).toMatchObject({ apiKey: 1000, apiVersion: 0, requestId: 0x01020304 })
    expect(ApiVersionsRequest.decode(parsed.body)).toMatchObject(message)
  })

  it('writes success, error and server-failure responses', () => {
    const success = join(encodeSuccessResponse(-2, TableExistsResponse, { exists: true }))
    expect(success.toString('hex')).toBe('0000000700fffffffe0801')
    expect(parseResponseFrame(success.subarray(4))).toMatchObject({ type: 0, requestId: -2 })

    const error = join(encodeErrorResponse(9, 7, 'no such table'))
    const parsedError = parseResponseFrame(error.subarray(4))
    expect(parsedError).toMatchObject({ type: 1, requestId: 9 })
    const flussError = decodeErrorBody(parsedError.body)
    expect(flussError.errorName).toBe('TABLE_NOT_EXIST')
    expect(flussError.message).toBe('no such table')

    const failure = join(encodeServerFailure(3, 'too big'))
    expect(failure.readInt32BE(0)).toBe(failure.length - 4)
    expect(failure[4]).toBe(2)
    const parsedFailure = parseResponseFrame(failure.subarray(4))
    expect(parsedFailure.type).toBe(2)
    expect(decodeErrorBody(parsedFailure.body).code).toBe(3)
  })

  it('keeps large records as their own chunk with a correct length prefix', () => {
    const records = Buffer.alloc(1 << 20, 9)
    const chunks = encodeRequest({ apiKey: 1014, apiVersion: 0, requestId: 1 }, ProduceLogRequest, {
      acks: -1,
      tableId: 3,
      timeoutMs: 1000,
      bucketsReq: [{ bucketId: 0, records }],
    })
    expect(chunks).toContain(records)
    const frame = join(chunks)
    expect(frame.readInt32BE(0)).toBe(frame.length - 4)
    const decoded = ProduceLogRequest.decode(parseRequestFrame(frame.subarray(4)).body)
    expect(decoded.bucketsReq[0].records.equals(records)).toBe(true)
  })

  it('rejects short or unknown response frames with CORRUPT_MESSAGE', () => {
    expect(thrown(() => parseResponseFrame(Buffer.from([0, 1]))).code).toBe(3)
    expect(thrown(() => parseResponseFrame(Buffer.from([7, 0, 0, 0, 1]))).code).toBe(3)
    expect(thrown(() => parseResponseFrame(Buffer.alloc(0))).code).toBe(3)
    expect(thrown(() => parseRequestFrame(Buffer.alloc(7))).code).toBe(3)
  })
})

describe('FrameDecoder', () => {
  const frames = [Buffer.from('hello'), Buffer.alloc(0), Buffer.from('a longer frame body '.repeat(20))]
  const stream = Buffer.concat(frames.flatMap(f => [int32(f.length), f]))

  it('returns several frames from one chunk as views of it', () => {
    const views: Buffer[] = []
    new FrameDecoder({ maxFrameBytes: 1000 }).push(stream, f => views.push(f))
    expect(views.map(v => v.toString())).toEqual(frames.map(f => f.toString()))
    expect(views[2].buffer).toBe(stream.buffer)
  })

  it('reassembles frames split at every byte boundary', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const out = collect(new FrameDecoder({ maxFrameBytes: 1000 }), [
        stream.subarray(0, cut),
        stream.subarray(cut),
      ])
      expect(out.map(v => v.toString())).toEqual(frames.map(f => f.toString()))
    }
  })

  it('reassembles a stream delivered one byte at a time', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 1000 })
    const bytes = [...stream].map(b => Buffer.from([b]))
    expect(collect(decoder, bytes).map(v => v.toString())).toEqual(frames.map(f => f.toString()))
    expect(decoder.bufferedBytes).toBe(0)
  })

  it('fails an oversized frame as soon as its length prefix is read, without buffering it', () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 100 })
    const error = thrown(() => decoder.push(Buffer.concat([int32(101), Buffer.alloc(10)]), () => {}))
    expect(error.code).toBe(3)
    expect(error.message).toMatch(/101/)
    expect(decoder.bufferedBytes).toBe(0)
    expect(thrown(() => decoder.push(Buffer.alloc(1), () => {})).code).toBe(3)
  })

  it('fails negative and too-short lengths after delivering the frames before them', () => {
    const seen: string[] = []
    const decoder = new FrameDecoder({ maxFrameBytes: 100, minFrameBytes: 2 })
    const chunk = Buffer.concat([int32(2), Buffer.from('ok'), int32(-5)])
    expect(thrown(() => decoder.push(chunk, f => seen.push(f.toString()))).code).toBe(3)
    expect(seen).toEqual(['ok'])
    expect(
      thrown(() => new FrameDecoder({ maxFrameBytes: 100, minFrameBytes: 2 }).push(int32(1), () => {})).code,
    ).toBe(3)
  })
})

function int32(n: number): Buffer {
  const b = Buffer.alloc(4)
  b.writeInt32BE(n)
  return b
}
