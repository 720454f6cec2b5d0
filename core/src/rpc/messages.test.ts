import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { PROTO_PATH } from '../../scripts/gen-proto.mjs'
import { FlussError } from '../errors/index.js'
import { ApiKeys } from './api-keys.js'
import {
  ApiVersionsRequest,
  ErrorResponse,
  FetchLogRequest,
  FetchLogResponse,
  MESSAGE_TYPES,
  MetadataRequest,
  PbApiVersion,
} from './generated/fluss-api.js'
import type { MessageType } from './message-codec.js'

const root = protobuf.loadSync(PROTO_PATH)
root.resolveAll()
const reflect = (name: string) => root.lookupType(`fluss.${name}`)

type Plain = Record<string, unknown>

/** A deterministic value for every field (all = false: required fields only). */
function sample(type: protobuf.Type, seed: number, all: boolean): Plain {
  const out: Plain = {}
  for (const f of type.fieldsArray) {
    if (!all && !f.required) continue
    const one = (i: number) => fieldValue(f, seed * 31 + f.id * 7 + i, all)
    out[f.name] = f.repeated ? [one(0), one(1)] : one(0)
  }
  return out
}

function fieldValue(f: protobuf.Field, n: number, all: boolean): unknown {
  if (f.resolvedType instanceof protobuf.Type) return sample(f.resolvedType, n, all)
  switch (f.type) {
    case 'int32':
      return n % 3 === 0 ? -n : n
    case 'int64':
      return n % 3 === 0 ? -n : 2 ** 40 + n
    case 'bool':
      return n % 2 === 0
    case 'string':
      return `v${n}-ü€`
    case 'bytes':
      return Buffer.from([n & 0xff, 0, 0xff, 1])
    default:
      throw new Error(`no sample for ${f.type}`)
  }
}

/** Reads every field (including absent ones, as decoded: null or []) into plain data. */
function plain(type: protobuf.Type, message: Plain): Plain {
  const out: Plain = {}
  for (const f of type.fieldsArray) {
    const v = message[f.name]
    const nested = f.resolvedType instanceof protobuf.Type ? f.resolvedType : undefined
    const conv = (x: unknown) => (nested ? plain(nested, x as Plain) : x instanceof Uint8Array ? [...x] : x)
    if (f.repeated) out[f.name] = ((v as unknown[] | undefined) ?? []).map(conv)
    else out[f.name] = v === undefined || v === null ? null : conv(v)
  }
  return out
}

function roundTrip(name: string, type: MessageType<unknown, unknown>, all: boolean): void {
  const shape = reflect(name)
  const init = sample(shape, name.length, all)
  const decoded = type.decode(type.encode(init)) as Plain
  expect(plain(shape, decoded)).toEqual(plain(shape, init))
}

/** The encoding without any occurrence of field `id` at the top level. */
function withoutField(bytes: Buffer, id: number): Buffer {
  const reader = protobuf.Reader.create(bytes)
  const kept: Buffer[] = []
  while (reader.pos < reader.len) {
    const start = reader.pos
    const tag = reader.uint32()
    reader.skipType(tag & 7)
    if (tag >>> 3 !== id) kept.push(bytes.subarray(start, reader.pos))
  }
  return Buffer.concat(kept)
}

describe('every API message', () => {
  for (const spec of Object.values(ApiKeys)) {
    it(`${spec.name} request and response round-trip (all fields, then required fields only)`, () => {
      for (const type of [spec.request, spec.response] as MessageType<unknown, unknown>[]) {
        roundTrip(type.name, type, true)
        roundTrip(type.name, type, false)
      }
    })
  }
})

describe('required fields', () => {
  const all = Object.values(MESSAGE_TYPES) as MessageType<unknown, unknown>[]
  it('the schema declares all 156 messages', () => {
    expect(all.length).toBe(156)
    const declared = (root.lookup('fluss') as protobuf.Namespace).nestedArray.map(n => n.name)
    expect(all.map(t => t.name).sort()).toEqual(declared.sort())
  })
  for (const type of all) {
    const required = reflect(type.name).fieldsArray.filter(f => f.required)
    if (required.length === 0) continue
    it(`${type.name} without ${required.map(f => f.name).join(' / ')} is CORRUPT_MESSAGE`, () => {
      const bytes = type.encode(sample(reflect(type.name), 1, true))
      for (const f of required) {
        let error: unknown
        try {
          type.decode(withoutField(bytes, f.id))
        } catch (e) {
          error = e
        }
        expect(error).toBeInstanceOf(FlussError)
        expect((error as FlussError).code).toBe(3)
        expect((error as FlussError).message).toContain(f.name)
      }
    })
  }
})

describe('wire bytes', () => {
  it('ApiVersionsRequest as the Java client sends it', () => {
    const bytes = ApiVersionsRequest.encode({ clientSoftwareName: 'fluss', clientSoftwareVersion: '0.1.0' })
    expect(bytes.toString('hex')).toBe(
      `0a05${Buffer.from('fluss').toString('hex')}1205${Buffer.from('0.1.0').toString('hex')}`,
    )
  })

  it('PbApiVersion and ErrorResponse', () => {
    expect(PbApiVersion.encode({ apiKey: 1016, minVersion: 0, maxVersion: 1 }).toString('hex')).toBe(
      '08f80710001801',
    )
    expect(ErrorResponse.encode({ errorCode: -1 }).toString('hex')).toBe('08ffffffffffffffffff01')
    expect(ErrorResponse.encode({ errorCode: 7, errorMessage: 'x' }).toString('hex')).toBe('08071201' + '78')
  })

  it('packed repeated fields are written packed and read in either form', () => {
    // MetadataRequest.partitions_id = 3 [packed]: tag 0x1a, length, varints
    expect(MetadataRequest.encode({ partitionsId: [1, 300] }).toString('hex')).toBe('1a0301ac02')
    const unpacked = Buffer.from('180118ac02', 'hex')
    expect(MetadataRequest.decode(unpacked).partitionsId).toEqual([1, 300])
  })

  it('skips unknown fields', () => {
    const known = PbApiVersion.encode({ apiKey: 1000, minVersion: 0, maxVersion: 0 })
    const extra = Buffer.concat([known, Buffer.from('a006052a0568656c6c6f', 'hex')])
    expect(PbApiVersion.decode(extra)).toMatchObject({ apiKey: 1000, minVersion: 0, maxVersion: 0 })
  })
})

describe('FETCH_LOG', () => {
  it('carries projection and remote log fetch info', () => {
    const request = FetchLogRequest.decode(
      FetchLogRequest.encode({
        followerServerId: -1,
        maxBytes: 16 << 20,
        maxWaitMs: 500,
        minBytes: 1,
        tablesReq: [
          {
            tableId: 12,
            projectionPushdownEnabled: true,
            projectedFields: [0, 2],
            bucketsReq: [{ bucketId: 1, partitionId: 5, fetchOffset: 100, maxFetchBytes: 1 << 20 }],
          },
        ],
      }),
    )
    expect(request.tablesReq[0].projectedFields).toEqual([0, 2])
    expect(request.tablesReq[0].bucketsReq[0]).toMatchObject({
      bucketId: 1,
      partitionId: 5,
      fetchOffset: 100,
    })
    const response = FetchLogResponse.decode(
      FetchLogResponse.encode({
        tablesResp: [
          {
            tableId: 12,
            bucketsResp: [
              {
                bucketId: 1,
                highWatermark: 200,
                logStartOffset: 0,
                remoteLogFetchInfo: {
                  remoteLogTabletDir: 's3://bucket/remote-log/12/_/1',
                  remoteLogSegments: [
                    {
                      remoteLogSegmentId: 'seg-1',
                      remoteLogStartOffset: 0,
                      remoteLogEndOffset: 99,
                      segmentSizeInBytes: 4096,
                    },
                  ],
                  firstStartPos: 128,
                },
              },
            ],
          },
        ],
      }),
    )
    const bucket = response.tablesResp[0].bucketsResp[0]
    expect(bucket.records).toBeNull()
    expect(bucket.errorCode).toBeNull()
    expect(bucket.remoteLogFetchInfo?.remoteLogSegments[0]).toMatchObject({
      remoteLogSegmentId: 'seg-1',
      remoteLogEndOffset: 99,
    })
    expect(bucket.remoteLogFetchInfo?.partitionName).toBeNull()
  })
})
