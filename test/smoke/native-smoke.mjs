// Loads every native or wasm dependency and exercises it once. Run under each runtime we ship on:
//   node test/smoke/native-smoke.mjs            (Node 20, development and CI)
//   <node22>/bin/node test/smoke/native-smoke.mjs (Node 22, the deployed images and Lambda)
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const require = createRequire(import.meta.url)
const checks = []
async function check(name, fn) {
  try {
    const detail = await fn()
    checks.push({ name, ok: true, detail })
  } catch (e) {
    checks.push({ name, ok: false, detail: String(e?.stack ?? e) })
  }
}
function expect(cond, msg) {
  if (!cond) throw new Error(msg)
}

await check('rocksdb-native open/put/get/iterate/flush/close', async () => {
  const RocksDB = require('rocksdb-native')
  const dir = mkdtempSync(join(tmpdir(), 'sluice-smoke-rocks-'))
  try {
    const db = new RocksDB(dir)
    await db.ready()
    const w = db.write({ autoDestroy: true })
    for (let i = 0; i < 100; i++) w.tryPut(Buffer.from(`k${i}`), Buffer.from(`v${i}`))
    await w.flush()
    const v = await db.get(Buffer.from('k42'))
    expect(v?.toString() === 'v42', `get returned ${v}`)
    let n = 0
    for await (const _ of db.iterator({ gte: Buffer.from('k9'), lt: Buffer.from('k:') })) n++
    expect(n === 11, `prefix scan saw ${n} keys`)
    await db.flush()
    await db.close()
    return 'ok'
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

await check('crc32c (@node-rs/crc32)', () => {
  const { crc32c } = require('@node-rs/crc32')
  const c = crc32c(Buffer.from('123456789')) >>> 0
  expect(c === 0xe3069283, `crc32c check value ${c.toString(16)}`)
  return c.toString(16)
})

await check('zstd (@bokuweb/zstd-wasm)', async () => {
  const zstd = require('@bokuweb/zstd-wasm')
  await zstd.init()
  const src = Buffer.alloc(100_000, 'sluice')
  const c = zstd.compress(src, 3)
  const d = Buffer.from(zstd.decompress(c))
  expect(d.equals(src), 'zstd round trip')
  return `${src.length} -> ${c.length}`
})

await check('lz4 frame (lz4-napi)', () => {
  const lz4 = require('lz4-napi')
  const src = Buffer.alloc(100_000, 'sluice')
  const c = lz4.compressFrameSync(src)
  expect(c.readUInt32LE(0) === 0x184d2204, 'lz4 frame magic')
  const d = lz4.decompressFrameSync(c)
  expect(Buffer.from(d).equals(src), 'lz4 round trip')
  return `${src.length} -> ${c.length}`
})

await check('parquet-wasm load', async () => {
  const pw = await import('parquet-wasm/node')
  expect(typeof pw.writeParquet === 'function', 'writeParquet missing')
  return 'ok'
})

await check('@duckdb/node-api query', async () => {
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const inst = await DuckDBInstance.create(':memory:')
  const conn = await inst.connect()
  const r = await conn.runAndReadAll('select 40 + 2 as x')
  const x = r.getRows()[0][0]
  conn.closeSync?.()
  expect(Number(x) === 42, `duckdb returned ${x}`)
  return 'ok'
})

const failed = checks.filter(c => !c.ok)
for (const c of checks)
  console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}${c.ok ? ` (${c.detail})` : `\n${c.detail}`}`)
console.log(
  `native smoke on node ${process.version}: ${checks.length - failed.length}/${checks.length} passed`,
)
process.exit(failed.length === 0 ? 0 : 1)
