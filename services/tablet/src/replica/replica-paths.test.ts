import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tablePath } from '@sluice/core/metadata'
import { describe, expect, it } from 'vitest'
import { logTabletDir, removeEmptyParentDirs } from './replica-paths.js'

describe('logTabletDir', () => {
  const path = tablePath('db', 'orders')

  it('lays buckets out under <db>/<table>-<id>[/<partition>-<id>]/log-<bucket>', () => {
    expect(logTabletDir('/data', { tablePath: path }, { tableId: 12, bucket: 3 })).toBe(
      '/data/db/orders-12/log-3',
    )
    expect(
      logTabletDir(
        '/data',
        { tablePath: path, partitionName: '2024' },
        { tableId: 12, partitionId: 5, bucket: 0 },
      ),
    ).toBe('/data/db/orders-12/2024-5/log-0')
  })

  it('refuses names that would leave the data directory and partitions without a name', () => {
    expect(() =>
      logTabletDir('/data', { tablePath: tablePath('..', 'x') }, { tableId: 1, bucket: 0 }),
    ).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
    expect(() =>
      logTabletDir('/data', { tablePath: tablePath('db', 'a/b') }, { tableId: 1, bucket: 0 }),
    ).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
    expect(() =>
      logTabletDir('/data', { tablePath: path }, { tableId: 1, partitionId: 2, bucket: 0 }),
    ).toThrow(expect.objectContaining({ errorName: 'INVALID_REQUEST' }))
  })
})

describe('removeEmptyParentDirs', () => {
  const path = tablePath('db', 'orders')

  it('removes the partition and table directories once empty, never a non-empty one', async () => {
    const data = mkdtempSync(join(tmpdir(), 'sluice-paths-'))
    try {
      const p1 = { tablePath: path, partitionName: 'a' }
      const p2 = { tablePath: path, partitionName: 'b' }
      const b1 = { tableId: 7, partitionId: 1, bucket: 0 }
      const b2 = { tableId: 7, partitionId: 2, bucket: 0 }
      mkdirSync(join(data, 'db/orders-7/a-1'), { recursive: true })
      mkdirSync(logTabletDir(data, p2, b2), { recursive: true })
      await removeEmptyParentDirs(data, p1, b1)
      expect(existsSync(join(data, 'db/orders-7/a-1'))).toBe(false)
      expect(existsSync(logTabletDir(data, p2, b2))).toBe(true)
      await removeEmptyParentDirs(data, p2, b2)
      expect(existsSync(logTabletDir(data, p2, b2))).toBe(true)
      rmSync(logTabletDir(data, p2, b2), { recursive: true })
      await removeEmptyParentDirs(data, p2, b2)
      expect(existsSync(join(data, 'db/orders-7'))).toBe(false)
      expect(existsSync(join(data, 'db'))).toBe(true)
      await removeEmptyParentDirs(data, p2, b2)
      await removeEmptyParentDirs(data, { tablePath: path }, { tableId: 9, bucket: 0 })
    } finally {
      rmSync(data, { recursive: true, force: true })
    }
  })
})
