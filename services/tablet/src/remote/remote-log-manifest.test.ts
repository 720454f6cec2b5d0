import { Configuration } from '@sluice/core/config'
import {
  decodeManifestBody,
  decodeManifestBytes,
  encodeManifestBytes,
  isRemoteId,
  newRemoteId,
  RemoteLogManifest,
  type RemoteLogSegmentEntry,
  remoteIdTimestampMs,
} from '@sluice/core/remotelog'
import { describe, expect, it } from 'vitest'
import { remoteLogServerSettings } from './remote-log-config.js'
import { remoteLogTableOptions } from './remote-log-types.js'

const PREFIX = 'remote-log/7/_/0'
const NOW = 1_700_000_000_000

function entry(baseOffset: number, endOffset: number, maxTimestamp = NOW): RemoteLogSegmentEntry {
  return {
    segmentId: newRemoteId(NOW),
    baseOffset,
    endOffset,
    maxTimestamp,
    sizeInBytes: 100,
    hasWriterSnapshot: false,
  }
}

describe('remote ids', () => {
  it('are UUID v7 strings carrying their creation time', () => {
    const id = newRemoteId(NOW)
    expect(isRemoteId(id)).toBe(true)
    expect(remoteIdTimestampMs(id)).toBe(NOW)
    expect(newRemoteId(NOW)).not.toBe(id)
    expect(remoteIdTimestampMs('8a6e0804-2bd0-4672-b79d-d97027f9071a')).toBeNull()
    expect(remoteIdTimestampMs('not-an-id')).toBeNull()
  })
})

describe('RemoteLogManifest', () => {
  it('tracks start, end (exclusive) and size; -1 when empty', () => {
    const empty = new RemoteLogManifest(PREFIX)
    expect([empty.remoteLogStartOffset, empty.remoteLogEndOffset, empty.canFetch(0)]).toEqual([-1, -1, false])
    const m = empty.withAppended([entry(0, 10), entry(10, 25)])
    expect([m.remoteLogStartOffset, m.remoteLogEndOffset, m.remoteSizeInBytes]).toEqual([0, 25, 200])
    expect([m.canFetch(0), m.canFetch(24), m.canFetch(25)]).toEqual([true, true, false])
    expect(m.withoutOldest(1).remoteLogStartOffset).toBe(10)
  })

  it('refuses segments that do not move the end forward', () => {
    const m = new RemoteLogManifest(PREFIX, [entry(0, 10)])
    expect(() => m.withAppended([entry(5, 10)])).toThrow(/does not follow/)
  })

  it('finds the segment and the relevant segments of an offset, across overlaps and gaps', () => {
    const [a, b, c] = [entry(0, 10), entry(8, 20), entry(30, 40)]
    const m = new RemoteLogManifest(PREFIX, [a, b, c])
    expect(m.segmentFor(9)).toBe(a)
    expect(m.segmentFor(10)).toBe(b)
    expect(m.segmentFor(25)).toBe(c)
    expect(m.segmentFor(40)).toBeNull()
    expect(m.relevantSegments(9)).toEqual([b, c])
    expect(m.relevantSegments(5)).toEqual([a, b, c])
    expect(m.relevantSegments(25)).toEqual([c])
  })

  it('covers only ranges without holes', () => {
    const m = new RemoteLogManifest(PREFIX, [entry(0, 10), entry(8, 20), entry(30, 40)])
    expect(m.covers(0, 20)).toBe(true)
    expect(m.covers(12, 20)).toBe(true)
    expect(m.covers(15, 31)).toBe(false)
    expect(m.covers(30, 41)).toBe(false)
    const later = new RemoteLogManifest(PREFIX, [entry(0, 10), entry(20, 30), entry(5, 40)])
    expect(later.covers(0, 40)).toBe(true)
    expect(later.remoteLogStartOffset).toBe(0)
  })

  it('takes a new leader segment that starts below the last remote segment', () => {
    const m = new RemoteLogManifest(PREFIX, [entry(0, 60), entry(60, 100)]).withAppended([entry(50, 150)])
    expect(m.segmentFor(55)?.endOffset).toBe(60)
    expect(m.segmentFor(120)?.baseOffset).toBe(50)
    expect(m.relevantSegments(55).map(s => s.endOffset)).toEqual([150])
    expect(m.covers(0, 150)).toBe(true)
  })

  it('expires the oldest segments past the TTL, only those already in the lake', () => {
    const m = new RemoteLogManifest(PREFIX, [
      entry(0, 10, NOW - 5000),
      entry(10, 20, NOW - 3000),
      entry(20, 30, NOW),
    ])
    expect(m.expiredCount(NOW, 2000, null)).toBe(2)
    expect(m.expiredCount(NOW, 3000, null)).toBe(1)
    expect(m.expiredCount(NOW, 0, null)).toBe(0)
    expect(m.expiredCount(NOW, 2000, 10)).toBe(1)
    expect(m.expiredCount(NOW, 2000, 5)).toBe(0)
  })
})

describe('manifest codec', () => {
  it('round-trips', () => {
    const m = new RemoteLogManifest(PREFIX, [entry(0, 10), { ...entry(10, 20), hasWriterSnapshot: true }])
    const back = decodeManifestBytes(encodeManifestBytes(m), 'test')
    expect(back.tabletPrefix).toBe(PREFIX)
    expect(back.segments).toEqual(m.segments)
  })

  it('refuses corrupt bodies with LOG_STORAGE_EXCEPTION', () => {
    const good = JSON.parse(
      encodeManifestBytes(new RemoteLogManifest(PREFIX, [entry(0, 10), entry(10, 20)])).toString(),
    )
    const cases: unknown[] = [
      null,
      { ...good, formatVersion: 2 },
      { ...good, tabletPrefix: '' },
      { ...good, segments: [{ ...good.segments[0], segmentId: 'x' }] },
      { ...good, segments: [{ ...good.segments[0], endOffset: 0 }] },
      { ...good, segments: [{ ...good.segments[0], sizeInBytes: 1.5 }] },
      { ...good, segments: [good.segments[1], good.segments[0]] },
    ]
    for (const body of cases) {
      expect(() => decodeManifestBody(body, 'test')).toThrow(
        expect.objectContaining({ errorName: 'LOG_STORAGE_EXCEPTION' }),
      )
    }
    expect(() => decodeManifestBytes(Buffer.from('{oops'), 'test')).toThrow(/not JSON/)
  })
})

describe('remote log configuration', () => {
  it('reads the server and table options, remote.data.dir falling back to the blob store URI', () => {
    const server = new Configuration({
      'sluice.blobstore.uri': 's3://bucket/prefix',
      'remote.log.task-interval-duration': '30s',
    })
    expect(remoteLogServerSettings(server)).toEqual({
      taskIntervalMs: 30_000,
      maxUploadSegments: 5,
      remoteDataDir: 's3://bucket/prefix',
    })
    expect(remoteLogServerSettings(server.with({ 'remote.data.dir': 's3://other' })).remoteDataDir).toBe(
      's3://other',
    )
    const table = new Configuration({ 'table.log.ttl': '1h', 'table.datalake.enabled': 'true' })
    expect(remoteLogTableOptions(table)).toEqual({
      logTtlMs: 3_600_000,
      localSegments: 2,
      localTtlMs: 3_600_000,
      datalakeEnabled: true,
      datalakeFreshnessMs: 180_000,
    })
    expect(
      remoteLogTableOptions(table.with({ 'table.log.local-ttl': '10min' })).localTtlMs,
      'table.log.local-ttl overrides the inherited table.log.ttl',
    ).toBe(600_000)
  })
})
