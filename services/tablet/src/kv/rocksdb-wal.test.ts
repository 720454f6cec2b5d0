import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Configuration, KV_ROCKSDB_WRITEBUFFER_SIZE, LOCAL_MODE_SERVER_CONFIG } from '@sluice/core/config'
import { afterEach, describe, expect, it } from 'vitest'
import { RocksDbKv, rocksDbKvOptions, SMALL_ROCKSDB_OPTIONS } from './rocksdb-kv.js'

const MB = 1024 * 1024
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** Disk blocks allocated to the bucket's write-ahead log files (RocksDB preallocates them). */
async function walAllocatedBytes(writeBufferSizeBytes: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-wal-'))
  dirs.push(dir)
  const kv = await RocksDbKv.open(dir, { ...SMALL_ROCKSDB_OPTIONS, writeBufferSizeBytes })
  try {
    const writes = Array.from({ length: 200 }, (_, i) => ({
      key: Buffer.from(`key-${i}`),
      value: { bytes: Buffer.alloc(100, i) },
    }))
    await kv.write(writes, null)
    return readdirSync(dir)
      .filter(f => f.endsWith('.log'))
      .reduce((sum, f) => sum + statSync(join(dir, f)).blocks * 512, 0)
  } finally {
    await kv.close()
  }
}

describe('RocksDB write-ahead log size', () => {
  it('is preallocated at about 1.1 times kv.rocksdb.writebuffer.size, whatever the data', async () => {
    const fluss = rocksDbKvOptions(Configuration.load({})).writeBufferSizeBytes
    expect(fluss).toBe(64 * MB)
    expect(await walAllocatedBytes(fluss)).toBeGreaterThan(60 * MB)
  })

  it('sluice local sizes it for small tables (4mb memtables: under 5 MB per bucket)', async () => {
    const local = rocksDbKvOptions(Configuration.load({ ...LOCAL_MODE_SERVER_CONFIG }))
    expect(local.writeBufferSizeBytes).toBe(4 * MB)
    expect(LOCAL_MODE_SERVER_CONFIG[KV_ROCKSDB_WRITEBUFFER_SIZE.key]).toBe('4mb')
    const bytes = await walAllocatedBytes(local.writeBufferSizeBytes)
    expect(bytes).toBeGreaterThan(0)
    expect(bytes).toBeLessThan(5 * MB)
  })
})
