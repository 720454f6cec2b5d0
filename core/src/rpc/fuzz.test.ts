import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import { prng } from '../testing/random.js'
import { TestingRawClient } from '../testing/raw-client.js'
import { ApiKeys } from './api-keys.js'
import { ClientConnection } from './client-connection.js'
import { decodeErrorBody, encodeRequest, type ResponseFrame } from './frame.js'
import * as messages from './generated/fluss-api.js'
import type { MessageType } from './message-codec.js'
import { RpcServer } from './server.js'

type Rng = ReturnType<typeof prng>

const MAX_REQUEST_BYTES = 4096
const SEEDS = [1, 2, 3]
const CASES_PER_SEED = 60
const PARALLEL = 6

let server: RpcServer
let port: number

beforeAll(async () => {
  server = new RpcServer({
    role: 'combined',
    maxRequestBytes: MAX_REQUEST_BYTES,
    maxInFlightPerConnection: 3,
    requestTimeoutMs: 1000,
    idleTimeoutMs: 2000,
  })
  server
    .register('PRODUCE_LOG', req => ({
      bucketsResp: req.bucketsReq.map(b => ({ bucketId: b.bucketId, baseOffset: 0 })),
    }))
    .register('LIST_OFFSETS', req => ({
      bucketsResp: req.bucketId.map(bucketId => ({ bucketId, offset: 1 })),
    }))
    .register('DESCRIBE_CLUSTER_CONFIGS', () => ({ configs: [] }))
    .register('GET_FILESYSTEM_SECURITY_TOKEN', () => {
      throw new FlussError('SECURITY_TOKEN_EXCEPTION', 'no remote storage')
    })
    .register('DATABASE_EXISTS', async req => {
      await new Promise(r => setTimeout(r, req.databaseName.length % 5))
      return { exists: true }
    })
  port = (await server.start()).port
})

afterAll(() => server.close(100))

const validFrames: ((rng: Rng) => Buffer)[] = [
  rng =>
    frame(1014, 0, rng.int(0, 2 ** 31 - 1), messages.ProduceLogRequest, {
      acks: -1,
      tableId: rng.int(0, 1000),
      timeoutMs: 100,
      bucketsReq: [{ bucketId: rng.int(0, 9), records: rng.bytes(rng.int(0, 300)) }],
    }),
  rng =>
    frame(1021, 0, rng.int(0, 1000), messages.ListOffsetsRequest, {
      followerServerId: -1,
      offsetType: 1,
      tableId: 1,
      bucketId: [1, 2],
    }),
  rng =>
    frame(1004, 0, rng.int(0, 1000), messages.DatabaseExistsRequest, {
      databaseName: rng.bytes(6).toString('hex'),
    }),
  rng =>
    frame(1000, 0, rng.int(0, 1000), messages.ApiVersionsRequest, {
      clientSoftwareName: 'f',
      clientSoftwareVersion: '1',
    }),
]

function frame<I>(
  apiKey: number,
  apiVersion: number,
  requestId: number,
  type: MessageType<unknown, I>,
  body: I,
): Buffer {
  return Buffer.concat(encodeRequest({ apiKey, apiVersion, requestId }, type, body))
}

const REGISTERED_KEYS = [1000, 1004, 1014, 1021, 1025, 1045]
const OTHER_KEYS = [...Object.values(ApiKeys).map(s => s.key), 999, 1039, 1061, -1, 32767]

/** A well-formed header (mostly a served API at version 0) around a random body. */
function garbageFrame(rng: Rng): Buffer {
  const body = rng.bytes(rng.int(0, 200))
  const header = Buffer.alloc(12)
  header.writeInt32BE(8 + body.length, 0)
  header.writeInt16BE(rng.next() < 0.7 ? rng.pick(REGISTERED_KEYS) : rng.pick(OTHER_KEYS), 4)
  header.writeInt16BE(rng.next() < 0.8 ? 0 : rng.int(-1, 2), 6)
  header.writeInt32BE(rng.int(-(2 ** 31), 2 ** 31 - 1), 8)
  return Buffer.concat([header, body])
}

/** A valid request frame with a few body bytes flipped (the header and length stay intact). */
function mutatedFrame(rng: Rng): Buffer {
  const bytes = Buffer.from(rng.pick(validFrames)(rng))
  for (let i = rng.int(1, 4); i > 0 && bytes.length > 12; i--)
    bytes[rng.int(12, bytes.length - 1)] = rng.int(0, 255)
  return bytes
}

/** One hostile payload of a random kind. */
function payload(rng: Rng): { kind: string; bytes: Buffer } {
  switch (rng.int(0, 6)) {
    case 0:
      return { kind: 'random bytes', bytes: rng.bytes(rng.int(1, 300)) }
    case 1: {
      const valid = rng.pick(validFrames)(rng)
      return { kind: 'truncated frame', bytes: valid.subarray(0, rng.int(1, valid.length - 1)) }
    }
    case 2:
      return { kind: 'valid header, garbage body', bytes: garbageFrame(rng) }
    case 3: {
      const parts = [
        rng.pick(validFrames)(rng),
        garbageFrame(rng),
        rng.pick(validFrames)(rng),
        garbageFrame(rng),
      ]
      return { kind: 'valid and garbage frames', bytes: Buffer.concat(parts) }
    }
    case 4: {
      const length = rng.pick([
        MAX_REQUEST_BYTES + 1,
        2 ** 31 - 1,
        -1,
        -(2 ** 31),
        rng.int(MAX_REQUEST_BYTES, 2 ** 30),
      ])
      const prefix = Buffer.alloc(4)
      prefix.writeInt32BE(length)
      return { kind: 'bad length prefix', bytes: Buffer.concat([prefix, rng.bytes(rng.int(0, 50))]) }
    }
    case 5:
      return {
        kind: 'valid frames with flipped body bytes',
        bytes: Buffer.concat([mutatedFrame(rng), mutatedFrame(rng)]),
      }
    default: {
      const prefix = Buffer.alloc(4)
      prefix.writeInt32BE(rng.int(0, 7))
      return { kind: 'frame shorter than a header', bytes: Buffer.concat([prefix, rng.bytes(rng.int(0, 7))]) }
    }
  }
}

/** Sends one payload in random pieces, half-closes, and collects everything until the server closes. */
async function attack(rng: Rng): Promise<{ kind: string; frames: ResponseFrame[] }> {
  const { kind, bytes } = payload(rng)
  const client = await TestingRawClient.connect(port)
  try {
    let offset = 0
    while (offset < bytes.length) {
      const end = Math.min(bytes.length, offset + rng.int(1, bytes.length))
      client.send(bytes.subarray(offset, end))
      offset = end
    }
    client.end()
    return { kind, frames: await client.untilClosed(5000) }
  } finally {
    client.destroy()
  }
}

function checkFrames(kind: string, frames: ResponseFrame[]): void {
  frames.forEach((frame, i) => {
    expect([0, 1, 2], kind).toContain(frame.type)
    if (frame.type === 2) expect(i, `${kind}: SERVER_FAILURE is the last frame`).toBe(frames.length - 1)
    if (frame.type !== 0) expect([2, 3, 25, 30], kind).toContain(decodeErrorBody(frame.body).code)
  })
}

describe('RpcServer under hostile input', () => {
  for (const seed of SEEDS) {
    it(`answers with errors or closes, never hangs, and keeps serving (seed ${seed})`, async () => {
      const rng = prng(seed)
      for (let done = 0; done < CASES_PER_SEED; done += PARALLEL) {
        const results = await Promise.all(Array.from({ length: PARALLEL }, () => attack(rng)))
        for (const { kind, frames } of results) checkFrames(`seed ${seed}: ${kind}`, frames)
      }
      const fresh = await ClientConnection.connect({ host: '127.0.0.1', port })
      try {
        expect(fresh.serverApiVersions?.has(ApiKeys.PRODUCE_LOG)).toBe(true)
        const response = await fresh.request('DATABASE_EXISTS', { databaseName: 'fluss' })
        expect(response.exists).toBe(true)
      } finally {
        fresh.close()
      }
    })
  }
})

describe('message decoding under random input', () => {
  it('either decodes or fails with CORRUPT_MESSAGE, for every message type', () => {
    const rng = prng(42)
    const types = Object.values(messages.MESSAGE_TYPES) as MessageType<unknown, unknown>[]
    for (const type of types) {
      for (let i = 0; i < 40; i++) {
        const input = rng.bytes(rng.int(0, 64))
        try {
          type.decode(input)
        } catch (e) {
          expect(e, `${type.name} <- ${input.toString('hex')}`).toBeInstanceOf(FlussError)
          expect((e as FlussError).code).toBe(3)
        }
      }
    }
  })
})

describe('ClientConnection against a server that answers garbage', () => {
  it('fails the handshake with a FlussError instead of crashing', async () => {
    const rng = prng(7)
    const liar: Server = createServer(socket => {
      socket.on('error', () => {})
      socket.once('data', () => socket.end(rng.bytes(rng.int(1, 64))))
    })
    await new Promise<void>(r => liar.listen(0, '127.0.0.1', r))
    try {
      const liarPort = (liar.address() as { port: number }).port
      for (let i = 0; i < 20; i++) {
        const outcome = await ClientConnection.connect({
          host: '127.0.0.1',
          port: liarPort,
          connectTimeoutMs: 2000,
        }).then(
          c => {
            c.close()
            return undefined
          },
          e => e as FlussError,
        )
        if (outcome === undefined) continue // the garbage happened to be a valid ApiVersions answer
        expect(outcome).toBeInstanceOf(FlussError)
      }
    } finally {
      await new Promise(r => liar.close(r))
    }
  })
})
