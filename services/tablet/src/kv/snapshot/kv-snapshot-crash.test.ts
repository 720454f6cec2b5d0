import { type ChildProcess, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { FsBlobStore } from '@sluice/core/blobstore'
import { Configuration } from '@sluice/core/config'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LogTablet } from '../../log/log-tablet.js'
import { FileMetaStore } from '../../testing/file-metastore.js'
import { readChangelog, testingLogOptions } from '../../testing/kv.js'
import {
  rowsOfKv,
  rowsOfRocksDb,
  SNAPSHOT_TEST_BUCKET,
  SNAPSHOT_TEST_SCHEMA,
} from '../../testing/kv-snapshot.js'
import type { KvTablet } from '../kv-tablet.js'
import { SMALL_ROCKSDB_OPTIONS } from '../rocksdb-kv.js'
import { fixedSchemaSource } from '../table-schemas.js'
import { openKvTabletWithRecovery } from './kv-recovery-open.js'
import { KvSnapshotRegistry } from './kv-snapshot-registry.js'
import { KvSnapshotStore } from './kv-snapshot-store.js'
import { KvSnapshotter } from './kv-snapshotter.js'

const here = dirname(fileURLToPath(import.meta.url))
const repoRoot = join(here, '..', '..', '..', '..', '..')
const schemas = fixedSchemaSource(1, SNAPSHOT_TEST_SCHEMA)
let bundle: string
let dir: string

beforeAll(async () => {
  // Inside the repository, so that the child resolves rocksdb-native from node_modules.
  const out = join(repoRoot, 'node_modules', '.cache', 'sluice-kv-snapshot-crash')
  await mkdir(out, { recursive: true })
  bundle = join(out, `child-${process.pid}-${Date.now()}.mjs`)
  await build({
    entryPoints: [join(here, '..', '..', 'testing', 'kv-snapshot-crash-child.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    conditions: ['sluice-src'],
    external: [
      'rocksdb-native',
      '@node-rs/crc32',
      'lz4-napi',
      '@bokuweb/zstd-wasm',
      'apache-arrow',
      '@aws-sdk/*',
    ],
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
    logLevel: 'warning',
  })
}, 60_000)

afterAll(async () => {
  if (bundle !== undefined) await rm(bundle, { force: true })
})

/** Runs the child until `killAt` says so, then kills it with SIGKILL; returns what it acknowledged. */
async function runAndKill(
  killAt: (line: string, committed: number) => boolean,
): Promise<Map<string, bigint>> {
  const child: ChildProcess = spawn(process.execPath, [bundle, dir, '1'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const acknowledged = new Map<string, bigint>()
  let committed = 0
  let killed = false
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  try {
    for await (const line of createInterface({ input: child.stdout! })) {
      const [kind, a, b] = line.split(' ')
      if (kind === 'ACK') {
        const round = Number(a)
        const from = (round * 13) % 200
        for (let i = 0; i < 10; i++) acknowledged.set(`k${(from + i) % 200}`, BigInt(round))
      }
      if (kind === 'SNAPSHOT' && a === 'committed') committed++
      if (!killed && killAt(line, committed)) {
        killed = child.kill('SIGKILL')
        void b
      }
    }
  } finally {
    if (!killed) child.kill('SIGKILL')
  }
  await exited
  expect(killed).toBe(true)
  return acknowledged
}

/** Rows (`key=value`) after the changelog records below `offset`. */
async function stateAt(log: LogTablet, offset: number): Promise<string[]> {
  const state = new Map<string, string>()
  for (const [at, type, row] of await readChangelog(log, schemas)) {
    if (at >= offset || type === '-U') continue
    if (type === '-D') state.delete(String(row[0]))
    else state.set(String(row[0]), `${row[0]}=${row[1]}`)
  }
  return [...state.values()].sort()
}

/** After the kill: a new leader opens the bucket, checks it, snapshots, and checks registry and BlobStore. */
async function recoverAndCheck(
  acknowledged: Map<string, bigint>,
  leftover: 'uploads' | 'checkpoint',
): Promise<void> {
  const blobStore = new FsBlobStore(join(dir, 'remote'))
  const metaStore = await FileMetaStore.open(join(dir, 'meta.json'))
  const log = await LogTablet.open(join(dir, 'log'), testingLogOptions())
  let kv: KvTablet | undefined
  try {
    const options = {
      log,
      schemas,
      tableConfig: new Configuration({}),
      rocksDb: SMALL_ROCKSDB_OPTIONS,
      recoverBatchBytes: 1 << 20,
      maxQueuedOperations: 100,
      maxPendingBytes: 64 << 20,
    }
    const store = new KvSnapshotStore({ blobStore, metaStore })
    const opened = await openKvTabletWithRecovery({
      bucketDir: join(dir, 'kv'),
      tableBucket: SNAPSHOT_TEST_BUCKET,
      options,
      snapshotStore: store,
    })
    kv = opened.kv
    log.updateHighWatermark(await kv.flush(log.logEndOffset))
    // Nothing acknowledged is lost: every key holds its acknowledged round or a later one.
    const rows = new Map((await rowsOfKv(kv)).map(r => r.split('=') as [string, string]))
    for (const [key, round] of acknowledged) expect(BigInt(rows.get(key) ?? -1)).toBeGreaterThanOrEqual(round)
    expect(await rowsOfKv(kv)).toEqual(await stateAt(log, kv.flushedOffset))
    // The next leader's first run cleans up after the killed one and commits.
    const snapshotter = new KvSnapshotter({
      tableBucket: SNAPSHOT_TEST_BUCKET,
      kv,
      leaderEpoch: 2,
      blobStore,
      metaStore,
      checkpointDir: join(dir, 'checkpoints'),
      intervalMs: 600_000,
      numRetained: 2,
      orphanSafetyWindowMs: 0,
    })
    if (leftover === 'checkpoint') expect((await readdir(join(dir, 'checkpoints'))).length).toBe(1)
    const result = await snapshotter.snapshotNow()
    expect(['committed', 'skipped']).toContain(result.status)
    if (leftover === 'uploads') expect(snapshotter.stats().orphansDeleted).toBeGreaterThan(0)
    expect(await readdir(join(dir, 'checkpoints')).catch(() => [])).toEqual([])
    const registry = new KvSnapshotRegistry(metaStore)
    const head = await registry.loadHead(SNAPSHOT_TEST_BUCKET)
    const committed = await registry.retained(SNAPSHOT_TEST_BUCKET, head!.head)
    expect(committed.length).toBeGreaterThan(0)
    expect(await registry.listIds(SNAPSHOT_TEST_BUCKET)).toEqual(committed.map(s => s.snapshotId))
    const listed = committed.flatMap(s => s.files.map(f => f.key)).sort()
    expect(await allKeys(blobStore)).toEqual([...new Set(listed)].sort())
    const restoreDir = join(dir, 'restored')
    const latest = await store.restoreLatest(SNAPSHOT_TEST_BUCKET, restoreDir)
    expect((await rowsOfRocksDb(restoreDir)).rows).toEqual(await stateAt(log, latest!.logOffset))
  } finally {
    await kv?.close()
    await log.close()
  }
}

async function allKeys(store: FsBlobStore): Promise<string[]> {
  const keys: string[] = []
  let cursor: string | undefined
  do {
    const page = await store.list('', cursor === undefined ? {} : { cursor })
    keys.push(...page.items.map(i => i.key))
    cursor = page.cursor
  } while (cursor !== undefined)
  return keys.sort()
}

describe('KV snapshots survive kill -9', () => {
  it('killed while uploading a snapshot', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-kv-crash-'))
    try {
      let uploads = 0
      const acknowledged = await runAndKill(
        (line, committed) => committed >= 2 && line.startsWith('UPLOAD') && ++uploads === 2,
      )
      await recoverAndCheck(acknowledged, 'uploads')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it('killed while taking a checkpoint', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-kv-crash-'))
    try {
      // Each checkpoint reads the live files twice (before and after staging): die at the second.
      let reads = 0
      const acknowledged = await runAndKill(
        (line, committed) => committed >= 2 && line === 'CHECKPOINT' && ++reads === 2,
      )
      await recoverAndCheck(acknowledged, 'checkpoint')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
