import { NO_COMPRESSION } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import type { TableBucket } from '@sluice/core/metadata'
import { LogRecordBatch } from '@sluice/core/record'
import { DataTypes } from '@sluice/core/types'
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerNode } from '../metadata/cluster.js'
import { waitUntil } from '../testing/fake-cluster.js'
import { type Deferred, deferred } from '../util/async.js'
import { ArrowLogBatchFormat } from './batch-format.js'
import { IdempotenceManager } from './idempotence-manager.js'
import { RecordAccumulator } from './record-accumulator.js'
import { Sender, type WriteRequest, type WriteResponse, type WriterNetwork } from './sender.js'
import type { WriteBatch } from './write-batch.js'
import { WriterMemory } from './writer-memory.js'

const rowType = DataTypes.ROW([{ name: 'id', type: DataTypes.INT(), fieldId: 0 }])
const NODE_A: ServerNode = { id: 1, host: '127.0.0.1', port: 1, role: 'tablet' }
const NODE_B: ServerNode = { id: 2, host: '127.0.0.1', port: 2, role: 'tablet' }

interface SentBatch {
  readonly node: ServerNode
  readonly bucket: number
  readonly writerId: number
  readonly sequence: number
  readonly bytes: Buffer
}

/** A WriterNetwork whose answers the test decides, request by request. */
class ScriptedNetwork implements WriterNetwork {
  readonly tableId = 5
  readonly leaders = new Map<number, ServerNode>([
    [0, NODE_A],
    [1, NODE_A],
    [2, NODE_A],
  ])
  readonly sent: SentBatch[] = []
  readonly pending: { request: WriteRequest; answer: Deferred<WriteResponse> }[] = []
  refreshes = 0
  invalidations = 0
  writerIds = 0
  initWriterError: FlussError | undefined
  /** Answers each request; default: hold it in `pending` until the test answers. */
  respond: ((node: ServerNode, request: WriteRequest) => WriteResponse | Promise<WriteResponse>) | undefined
  onRefresh: () => void = () => {}

  partitionId(): number | undefined {
    return undefined
  }
  leaderFor(tb: TableBucket): ServerNode | undefined {
    return this.leaders.get(tb.bucket)
  }
  async refresh(): Promise<void> {
    this.refreshes++
    this.onRefresh()
  }
  invalidate(): void {
    this.invalidations++
  }
  async initWriter(): Promise<number> {
    if (this.initWriterError !== undefined) throw this.initWriterError
    return ++this.writerIds * 100
  }
  write(node: ServerNode, request: WriteRequest): Promise<WriteResponse> {
    for (const b of request.bucketsReq ?? []) {
      const batch = new LogRecordBatch(Buffer.from(b.records))
      this.sent.push({
        node,
        bucket: b.bucketId,
        writerId: batch.writerId,
        sequence: batch.batchSequence,
        bytes: Buffer.from(b.records),
      })
    }
    if (this.respond !== undefined) return Promise.resolve(this.respond(node, request))
    const answer = deferred<WriteResponse>()
    this.pending.push({ request, answer })
    return answer.promise
  }
}

let nextOffset = 0
function ok(request: WriteRequest): WriteResponse {
  return {
    bucketsResp: (request.bucketsReq ?? []).map(b => {
      const base = nextOffset
      nextOffset += new LogRecordBatch(Buffer.from(b.records)).recordCount
      return {
        partitionId: null,
        bucketId: b.bucketId,
        errorCode: null,
        errorMessage: null,
        offset: base,
      }
    }),
  }
}
function failWith(request: WriteRequest, code: number): WriteResponse {
  return {
    bucketsResp: (request.bucketsReq ?? []).map(b => ({
      partitionId: null,
      bucketId: b.bucketId,
      errorCode: code,
      errorMessage: `error ${code}`,
      offset: null,
    })),
  }
}

const senders: Sender[] = []
afterEach(() => {
  for (const s of senders.splice(0)) s.close()
})

function harness(
  options: {
    idempotence?: boolean
    maxInflight?: number
    retries?: number
    batchSizeBytes?: number
    requestMaxBytes?: number
  } = {},
) {
  const network = new ScriptedNetwork()
  const accumulator = new RecordAccumulator(
    {
      format: new ArrowLogBatchFormat(rowType, NO_COMPRESSION),
      batchSizeBytes: options.batchSizeBytes ?? 1,
      batchTimeoutMs: 60_000,
    },
    new WriterMemory(1 << 20),
  )
  const idempotence = new IdempotenceManager(options.idempotence ?? true, options.maxInflight ?? 5)
  const failures: { error: FlussError; batch: WriteBatch }[] = []
  const sender = new Sender(
    accumulator,
    network,
    idempotence,
    {
      acks: -1,
      retries: options.retries ?? 10,
      requestMaxBytes: options.requestMaxBytes ?? 1 << 20,
      requestTimeoutMs: 1000,
      schemaId: 1,
    },
    (error, batch) => failures.push({ error, batch }),
  )
  senders.push(sender)
  const append = (id: number, bucket = 0) => {
    const outcome = accumulator.append([id], undefined, bucket, Date.now())
    sender.wakeup()
    return outcome
  }
  const flush = () => {
    const upTo = accumulator.beginFlush()
    sender.wakeup()
    return accumulator.flushed(upTo)
  }
  return { network, accumulator, idempotence, sender, failures, append, flush }
}

describe('Sender with idempotence', () => {
  it('numbers batches per bucket from 0 under the writer id from INIT_WRITER', async () => {
    const h = harness()
    h.network.respond = (_, r) => ok(r)
    for (let i = 0; i < 3; i++) h.append(i, 0)
    for (let i = 0; i < 2; i++) h.append(i, 1)
    await h.flush()
    const byBucket = (b: number) =>
      h.network.sent.filter(s => s.bucket === b).map(s => [s.writerId, s.sequence])
    expect(byBucket(0)).toEqual([
      [100, 0],
      [100, 1],
      [100, 2],
    ])
    expect(byBucket(1)).toEqual([
      [100, 0],
      [100, 1],
    ])
  })

  it('keeps at most max-inflight-requests-per-bucket batches unacknowledged', async () => {
    const h = harness({ maxInflight: 2 })
    for (let i = 0; i < 4; i++) h.append(i)
    const flushed = h.flush()
    await waitUntil(() => h.network.sent.length === 2)
    await new Promise(resolve => setTimeout(resolve, 20))
    expect(h.network.sent.map(s => s.sequence)).toEqual([0, 1])
    const first = h.network.pending.shift()
    first?.answer.resolve(ok(first.request))
    await waitUntil(() => h.network.sent.length === 3)
    h.network.respond = (_, r) => ok(r)
    for (const p of h.network.pending.splice(0)) p.answer.resolve(ok(p.request))
    await flushed
    expect(h.network.sent.map(s => s.sequence)).toEqual([0, 1, 2, 3])
  })

  it('retries a batch after NOT_LEADER_OR_FOLLOWER with the same bytes, refreshing metadata first', async () => {
    const h = harness()
    let answers = 0
    h.network.respond = (_, r) => (answers++ === 0 ? failWith(r, 12) : ok(r))
    h.network.onRefresh = () => h.network.leaders.set(0, NODE_B)
    const outcome = h.append(42)
    const result = outcome.batch.waitFor(outcome.index)
    await h.flush()
    expect(h.network.refreshes).toBeGreaterThan(0)
    expect(h.network.invalidations).toBe(1)
    expect(h.network.sent.map(s => s.node.id)).toEqual([1, 2])
    expect(h.network.sent[1].bytes.equals(h.network.sent[0].bytes)).toBe(true)
    expect((await result).offset).toBeGreaterThanOrEqual(0)
  })

  it('re-sends failed in-flight batches in sequence order, one at a time', async () => {
    const h = harness()
    for (let i = 0; i < 2; i++) h.append(i)
    const flushed = h.flush()
    await waitUntil(() => h.network.pending.length === 2)
    h.network.respond = (_, r) => ok(r)
    // Answers arrive out of order: sequence 1 fails first, then sequence 0.
    const [p0, p1] = h.network.pending.splice(0)
    p1.answer.resolve(failWith(p1.request, 25))
    p0.answer.resolve(failWith(p0.request, 25))
    await flushed
    expect(h.network.sent.map(s => s.sequence)).toEqual([0, 1, 0, 1])
  })

  it('takes DUPLICATE_SEQUENCE as success', async () => {
    const h = harness()
    h.network.respond = (_, r) => failWith(r, 32)
    h.append(1)
    await expect(h.flush()).resolves.toBeUndefined()
    expect(h.failures).toEqual([])
  })

  it('retries OUT_OF_ORDER_SEQUENCE while an earlier batch is unacknowledged, fails it when it was next', async () => {
    const h = harness()
    h.append(0)
    h.append(1)
    const flushed = h.flush()
    await waitUntil(() => h.network.pending.length === 2)
    const [p0, p1] = h.network.pending.splice(0)
    // Sequence 1 reached the server before sequence 0: it is retried, not failed.
    p1.answer.resolve(failWith(p1.request, 31))
    await waitUntil(
      () =>
        h.idempotence.unackedSequences([...h.accumulator.queues()][0]).length === 2 &&
        [...h.accumulator.queues()][0].batches.length === 1,
    )
    h.network.respond = (_, r) => ok(r)
    p0.answer.resolve(ok(p0.request))
    await flushed
    expect(h.network.sent.map(s => s.sequence)).toEqual([0, 1, 1])

    // Now the server lost the sequence: OUT_OF_ORDER for the next expected batch fails it for good.
    h.network.respond = (_, r) => failWith(r, 31)
    h.append(2)
    await expect(h.flush()).rejects.toMatchObject({ errorName: 'OUT_OF_ORDER_SEQUENCE_EXCEPTION' })
    expect(h.idempotence.hasWriterId).toBe(false)
  })

  it('fails a batch on a non-retriable error, reports it, and restarts at sequence 0 under a new writer id', async () => {
    const h = harness()
    h.network.respond = (_, r) => failWith(r, 13)
    h.append(1)
    h.append(2)
    await expect(h.flush()).rejects.toMatchObject({ code: 13 })
    expect(h.failures.map(f => [f.error.code, f.batch.recordCount])).toEqual([
      [13, 1],
      [13, 1],
    ])
    h.network.respond = (_, r) => ok(r)
    h.append(3)
    await h.flush()
    const last = h.network.sent.at(-1)
    expect(last?.sequence).toBe(0)
    expect(last?.writerId).toBeGreaterThan(h.network.sent[0].writerId)
  })

  it('gives up after client.writer.retries retries', async () => {
    const h = harness({ retries: 2 })
    h.network.respond = (_, r) => failWith(r, 25)
    h.append(1)
    await expect(h.flush()).rejects.toMatchObject({ errorName: 'REQUEST_TIME_OUT' })
    expect(h.network.sent).toHaveLength(3)
  })

  it('retries every batch of a request that failed as a whole (disconnect)', async () => {
    const h = harness()
    let calls = 0
    h.network.respond = async (_, r) => {
      if (calls++ === 0) throw new FlussError('NETWORK_EXCEPTION', 'connection reset')
      return ok(r)
    }
    h.append(1, 0)
    h.append(2, 1)
    await h.flush()
    const resent = h.network.sent.slice(-2)
    expect(resent.map(s => [s.bucket, s.sequence]).sort()).toEqual([
      [0, 0],
      [1, 0],
    ])
  })

  it('fails queued batches when INIT_WRITER keeps failing', async () => {
    const h = harness()
    h.network.initWriterError = new FlussError('AUTHORIZATION_EXCEPTION', 'no WRITE permission')
    h.append(1)
    await expect(h.flush()).rejects.toMatchObject({ errorName: 'AUTHORIZATION_EXCEPTION' })
    expect(h.network.sent).toEqual([])
  })
})

describe('Sender without idempotence', () => {
  it('sends batches without writer id or sequence and never calls INIT_WRITER', async () => {
    const h = harness({ idempotence: false })
    h.network.respond = (_, r) => ok(r)
    h.append(1)
    await h.flush()
    expect(h.network.writerIds).toBe(0)
    expect(h.network.sent.map(s => [s.writerId, s.sequence])).toEqual([[-1, -1]])
  })

  it('splits batches for one leader into requests of at most request-max-size', async () => {
    const h = harness({ idempotence: false, requestMaxBytes: 300 })
    const requests: number[] = []
    h.network.respond = (_, r) => {
      requests.push(r.bucketsReq?.length ?? 0)
      return ok(r)
    }
    for (let b = 0; b < 3; b++) h.append(b, b)
    await h.flush()
    expect(requests.reduce((a, b) => a + b, 0)).toBe(3)
    expect(requests.length).toBeGreaterThan(1)
  })
})
