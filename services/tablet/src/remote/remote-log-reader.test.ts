import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { FsBlobStore } from '@sluice/core/blobstore'
import { physicalTablePath, tableBucket, tablePath } from '@sluice/core/metadata'
import { MemoryLogRecords } from '@sluice/core/record'
import { RemoteLogManifestStore, readRemoteBatches } from '@sluice/core/remotelog'
import { afterEach, describe, expect, it } from 'vitest'
import { OffsetIndex } from '../log/index.js'
import {
  appendHarnessBatches,
  harnessBatchOffsets,
  openRemoteLogHarness,
  type RemoteLogHarness,
} from '../testing/remote-log.js'
import { RemoteIndexCache } from './remote-index-cache.js'
import { RemoteLogReader } from './remote-log-reader.js'
import { RemoteLogStats } from './remote-log-stats.js'

let h: RemoteLogHarness
let blobRoot: string | null = null

afterEach(async () => {
  await h.close()
  if (blobRoot !== null) await rm(blobRoot, { recursive: true, force: true })
  blobRoot = null
})

/** 30 batches, all segments but the active one uploaded, local copies trimmed to 2 segments. */
async function tiered(
  options: Parameters<typeof openRemoteLogHarness>[0] = {},
): Promise<{ offsets: number[]; reader: RemoteLogReader }> {
  h = await openRemoteLogHarness(options)
  const offsets = await appendHarnessBatches(h, 30)
  h.tablet.updateHighWatermark(h.tablet.logEndOffset)
  h.manager.startLeader(h.replica())
  const run = await h.manager.runOnce(h.bucket)
  expect(run?.error).toBeUndefined()
  const reader = h.manager.reader(h.bucket)
  if (reader === null) throw new Error('no reader')
  expect(h.tablet.logStartOffset).toBeGreaterThan(0)
  return { offsets, reader }
}

describe('RemoteLogReader for our SDK', () => {
  it('reads every batch exactly once, in order, from offset 0 through remote then local', async () => {
    const { offsets, reader } = await tiered()
    const seen: number[] = []
    let offset = 0
    let remoteReads = 0
    while (offset < h.tablet.highWatermark) {
      const params = { fetchOffset: offset, maxBytes: 400, minOneMessage: true }
      const fromRemote = offset < h.tablet.logStartOffset
      if (fromRemote) remoteReads++
      const records = fromRemote
        ? (await reader.read(params)).records
        : (await h.tablet.read({ ...params, isolation: 'HIGH_WATERMARK' })).records
      const batches = new MemoryLogRecords(records).validateAll()
      expect(batches.length).toBeGreaterThan(0)
      seen.push(...batches.map(b => b.baseOffset))
      offset = (batches[batches.length - 1]?.lastOffset as number) + 1
    }
    expect(seen).toEqual(offsets)
    expect(remoteReads).toBeGreaterThan(2)
    expect(h.manager.stats().remoteReads).toBe(remoteReads)
  })

  it('starts at the batch holding the offset and honours maxBytes and minOneMessage', async () => {
    const { offsets, reader } = await tiered()
    const target = (offsets[3] as number) + 1
    const one = await reader.read({ fetchOffset: target, maxBytes: 1, minOneMessage: true })
    expect(harnessBatchOffsets(one.records)).toEqual([offsets[3]])
    expect(
      (await reader.read({ fetchOffset: target, maxBytes: 1, minOneMessage: false })).records.length,
    ).toBe(0)
    const segmentEnd = one.segment.endOffset
    const all = await reader.read({ fetchOffset: target, maxBytes: 1 << 20, minOneMessage: true })
    expect(harnessBatchOffsets(all.records)).toEqual(
      offsets.filter(o => o >= (offsets[3] as number) && o < segmentEnd),
    )
  })

  it('refuses offsets outside the remote log with LOG_OFFSET_OUT_OF_RANGE_EXCEPTION', async () => {
    const { reader } = await tiered()
    expect(reader.canFetch(reader.remoteLogEndOffset)).toBe(false)
    await expect(
      reader.read({ fetchOffset: reader.remoteLogEndOffset, maxBytes: 100, minOneMessage: true }),
    ).rejects.toMatchObject({
      errorName: 'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
    })
    await expect(reader.read({ fetchOffset: -5, maxBytes: 100, minOneMessage: true })).rejects.toMatchObject({
      errorName: 'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
    })
    await expect(reader.read({ fetchOffset: 0, maxBytes: -1, minOneMessage: true })).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
    })
  })

  it('reports corrupt remote bytes as LOG_STORAGE_EXCEPTION', async () => {
    const { reader } = await tiered()
    const { segment } = await reader.read({ fetchOffset: 0, maxBytes: 100, minOneMessage: true })
    const key = `remote-log/7/_/0/${segment.segmentId}/00000000000000000000.log`
    const bytes = Buffer.from((await h.blobStore.inner.get(key)) as Uint8Array)
    bytes[bytes.length - 1] ^= 0xff
    await h.blobStore.inner.put(key, bytes)
    const lastBatchOffset = segment.endOffset - 1
    await expect(
      reader.read({ fetchOffset: lastBatchOffset, maxBytes: 1 << 20, minOneMessage: true }),
    ).rejects.toMatchObject({
      errorName: 'LOG_STORAGE_EXCEPTION',
      message: expect.stringMatching(/CRC mismatch/),
    })
    expect(h.manager.stats().remoteReadErrors).toBe(1)
    await h.blobStore.inner.delete([key])
    await expect(reader.read({ fetchOffset: 0, maxBytes: 100, minOneMessage: true })).rejects.toMatchObject({
      errorName: 'LOG_OFFSET_OUT_OF_RANGE_EXCEPTION',
    })
  })

  it('gives LIST_OFFSETS earliest as the remote start when remote data exists', async () => {
    const { reader } = await tiered()
    expect(reader.earliestOffset(h.tablet.logStartOffset)).toBe(0)
    expect(reader.earliestOffset(0)).toBe(0)
    // A new leader serves remote reads as soon as its manifest is loaded, before its first run.
    await h.manager.startLeader(h.replica({ leaderEpoch: 2 }))
    const fresh = h.manager.reader(h.bucket) as RemoteLogReader
    expect(fresh.earliestOffset(h.tablet.logStartOffset)).toBe(0)
    expect(h.manager.stats().runs).toBe(1)
    await h.manager.stop(h.bucket)
    h.metaStore.faults.inject({ ops: ['get'] })
    await h.manager.startLeader(h.replica({ leaderEpoch: 3 }))
    const unloaded = h.manager.reader(h.bucket) as RemoteLogReader
    expect([unloaded.remoteLogStartOffset, unloaded.canFetch(0)]).toEqual([-1, false])
    expect(unloaded.earliestOffset(h.tablet.logStartOffset)).toBe(h.tablet.logStartOffset)
  })
})

describe('RemoteLogReader for Fluss clients', () => {
  it('fills PbRemoteLogFetchInfo so the Fluss path layout finds the segment files', async () => {
    blobRoot = await mkdtemp(join(tmpdir(), 'sluice-blob-'))
    const remoteDataDir = pathToFileURL(blobRoot).href
    const { offsets, reader } = await tiered({ blobStore: new FsBlobStore(blobRoot), remoteDataDir })
    const fetchOffset = (offsets[6] as number) + 1
    const info = await reader.fetchInfo(fetchOffset)
    expect(info.remoteLogTabletDir).toBe(`${remoteDataDir}/remote-log/7/_/0`)
    expect(info.partitionName).toBeNull()
    const segments = info.remoteLogSegments ?? []
    expect(segments.length).toBeGreaterThan(0)
    expect(segments[segments.length - 1]?.remoteLogEndOffset).toBe(reader.remoteLogEndOffset)
    const first = segments[0]
    if (first === undefined) throw new Error('no segment')
    expect(first.remoteLogStartOffset).toBeLessThanOrEqual(fetchOffset)
    expect(first.remoteLogEndOffset).toBeGreaterThan(fetchOffset)
    // What Fluss's RemoteLogDownloader opens: <tablet dir>/<segment id>/<20-digit base offset>.log
    const name = `${String(first.remoteLogStartOffset).padStart(20, '0')}.log`
    const file = await readFile(join(fileURLToPath(info.remoteLogTabletDir), first.remoteLogSegmentId, name))
    expect(file.length).toBe(first.segmentSizeInBytes)
    const fromStart = new MemoryLogRecords(file.subarray(info.firstStartPos ?? 0)).validateAll()
    expect(fromStart[0]?.baseOffset).toBeLessThanOrEqual(fetchOffset)
    expect(fromStart.some(b => b.baseOffset <= fetchOffset && b.lastOffset >= fetchOffset)).toBe(true)
    const index = await readFile(
      join(fileURLToPath(info.remoteLogTabletDir), first.remoteLogSegmentId, name.replace('.log', '.index')),
    )
    const expected = OffsetIndex.fromBytes(first.remoteLogStartOffset, 100, index, file.length)?.lookup(
      fetchOffset,
    ).position
    expect(info.firstStartPos).toBe(expected)
    expect(info.firstStartPos).toBeGreaterThan(0)
  })

  it('names the partition of a partitioned table', async () => {
    await tiered()
    const { manifest } = await new RemoteLogManifestStore(h.metaStore, h.blobStore, {
      inlineBytesMax: 1 << 16,
      nowMs: () => 0,
    }).load(h.bucket)
    const partitioned = new RemoteLogReader(
      tableBucket(7, 0, 3),
      physicalTablePath(tablePath('shop', 'orders'), 'dt=2024'),
      () => manifest,
      {
        blobStore: h.blobStore,
        indexCache: new RemoteIndexCache(1 << 20),
        stats: new RemoteLogStats(),
        remoteDataDir: 's3://b/p/',
        readChunkBytes: 64,
        operationTimeoutMs: 1000,
      },
    )
    const info = await partitioned.fetchInfo(0)
    expect(info).toMatchObject({
      remoteLogTabletDir: 's3://b/p/remote-log/7/3/0',
      partitionName: 'dt=2024',
      firstStartPos: 0,
    })
    expect(info.remoteLogSegments?.map(s => s.remoteLogSegmentId)).toEqual(
      manifest.segments.map(s => s.segmentId),
    )
  })
})

describe('readRemoteBatches', () => {
  it('reads across many small ranged GETs and stops at batch boundaries', async () => {
    h = await openRemoteLogHarness()
    const offsets = await appendHarnessBatches(h, 3)
    const { records } = await h.tablet.read({
      fetchOffset: 0,
      maxBytes: 1 << 20,
      isolation: 'LOG_END',
      minOneMessage: true,
    })
    const gets: Array<[number, number]> = []
    const read = async (start: number, end: number) => {
      gets.push([start, end])
      return records.subarray(start, end)
    }
    const params = {
      segmentBytes: records.length,
      startPosition: 0,
      fetchOffset: offsets[1] as number,
      minOneMessage: true,
      chunkBytes: 20,
      where: 'test',
    }
    const oneBatch = records.length / 3
    expect(harnessBatchOffsets(await readRemoteBatches(read, { ...params, maxBytes: 2 * oneBatch }))).toEqual(
      offsets.slice(1),
    )
    expect(gets.length).toBeGreaterThan(1)
    expect(harnessBatchOffsets(await readRemoteBatches(read, { ...params, maxBytes: 1 << 20 }))).toEqual(
      offsets.slice(1),
    )
    expect(harnessBatchOffsets(await readRemoteBatches(read, { ...params, maxBytes: oneBatch }))).toEqual([
      offsets[1],
    ])
    await expect(
      readRemoteBatches(read, { ...params, segmentBytes: records.length + 10, maxBytes: 1 << 20 }),
    ).rejects.toMatchObject({
      errorName: 'LOG_STORAGE_EXCEPTION',
    })
    const cut = async (start: number, end: number) =>
      records.subarray(start, Math.min(end, records.length - 5))
    await expect(readRemoteBatches(cut, { ...params, maxBytes: 1 << 20 })).rejects.toThrow(/object ended/)
  })
})
