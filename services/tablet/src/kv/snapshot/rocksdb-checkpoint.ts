import { copyFile, link, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { FlussError } from '@sluice/core/errors'
import type { RocksDbKv } from '../rocksdb-kv.js'

/** One file of a checkpoint directory. SST files are hard links to the store's own (immutable) files. */
export interface CheckpointFile {
  readonly name: string
  readonly path: string
  readonly size: number
  readonly role: 'shared' | 'private'
}

export interface RocksDbCheckpoint {
  readonly dir: string
  readonly files: readonly CheckpointFile[]
}

const LIVE_SST_PROPERTY = 'rocksdb.sstables'
const MANIFEST_NAME = /^MANIFEST-\d+$/
const OPTIONS_NAME = /^OPTIONS-(\d+)$/
const ATTEMPTS_MAX = 8
const RETRY_DELAY_MS = 5

/** RocksDB's table file name for a file number (`MakeTableFileName`: six digits at least). */
export function sstFileName(fileNumber: number): string {
  return `${String(fileNumber).padStart(6, '0')}.sst`
}

/**
 * The SST files of the current version with their sizes, from the `rocksdb.sstables` property: one
 * line per file, ` <number>:<size>[<seqno range>]...`, under `--- level N ---` headers.
 */
export function parseLiveSstFiles(text: string): Map<string, number> {
  const files = new Map<string, number>()
  for (const m of text.matchAll(/^\s*(\d+):(\d+)\[/gm)) files.set(sstFileName(Number(m[1])), Number(m[2]))
  if (files.size === 0 && /\d+:\d+\[/.test(text)) {
    throw new FlussError(
      'KV_STORAGE_EXCEPTION',
      `unexpected format of ${LIVE_SST_PROPERTY}: ${text.slice(0, 200)}`,
    )
  }
  return files
}

interface StoreState {
  readonly current: string
  readonly manifest: string
  readonly manifestSize: number
  readonly liveSst: string
}

async function readState(rocks: RocksDbKv): Promise<StoreState> {
  const current = await readFile(join(rocks.dir, 'CURRENT'), 'utf8')
  const manifest = current.trim()
  if (!MANIFEST_NAME.test(manifest)) {
    throw new FlussError('KV_STORAGE_EXCEPTION', `CURRENT of RocksDB in ${rocks.dir} names '${manifest}'`)
  }
  const manifestSize = (await stat(join(rocks.dir, manifest))).size
  return { current, manifest, manifestSize, liveSst: await rocks.property(LIVE_SST_PROPERTY) }
}

function sameState(a: StoreState, b: StoreState): boolean {
  return a.current === b.current && a.manifestSize === b.manifestSize && a.liveSst === b.liveSst
}

/**
 * Takes a checkpoint of an open RocksDB into `dir` (which is replaced), on the same filesystem: the
 * memtable is flushed to SST files, the live SST files are hard-linked, MANIFEST, CURRENT and the
 * newest OPTIONS are copied. RocksDB's background work may change the live files meanwhile (a
 * compaction finishing), so the state (CURRENT, MANIFEST size, live files) is read before and after
 * staging, and staging repeats until both agree: then the copied MANIFEST describes exactly the
 * linked files. Files never change once written, and a linked file survives its deletion by a later
 * compaction. The caller must keep writers out of RocksDB until this resolves; reads may go on.
 */
export async function checkpointRocksDb(rocks: RocksDbKv, dir: string): Promise<RocksDbCheckpoint> {
  await rocks.flushMemTable()
  for (let attempt = 1; attempt <= ATTEMPTS_MAX; attempt++) {
    const before = await readState(rocks)
    await rm(dir, { recursive: true, force: true })
    await mkdir(dir, { recursive: true })
    const files = await stage(rocks.dir, dir, before)
    const after = await readState(rocks)
    if (files !== null && sameState(before, after)) return { dir, files }
    await new Promise(resolve => setTimeout(resolve, RETRY_DELAY_MS * attempt))
  }
  await rm(dir, { recursive: true, force: true })
  throw new FlussError(
    'KV_STORAGE_EXCEPTION',
    `RocksDB in ${rocks.dir} kept changing its files during ${ATTEMPTS_MAX} checkpoint attempts`,
  )
}

/** Links and copies the files of `state` into `dst`; null when a live file vanished meanwhile. */
async function stage(src: string, dst: string, state: StoreState): Promise<CheckpointFile[] | null> {
  const files: CheckpointFile[] = []
  for (const [name, size] of parseLiveSstFiles(state.liveSst)) {
    const path = join(dst, name)
    try {
      await link(join(src, name), path)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw storageError(e, `linking ${name} of RocksDB in ${src}`)
    }
    const linkedSize = (await stat(path)).size
    if (linkedSize !== size) return null
    files.push({ name, path, size, role: 'shared' })
  }
  const manifestPath = join(dst, state.manifest)
  if (!(await copyIfPresent(join(src, state.manifest), manifestPath))) return null
  if ((await stat(manifestPath)).size !== state.manifestSize) return null
  files.push({ name: state.manifest, path: manifestPath, size: state.manifestSize, role: 'private' })
  const currentPath = join(dst, 'CURRENT')
  await writeFile(currentPath, state.current)
  files.push({ name: 'CURRENT', path: currentPath, size: Buffer.byteLength(state.current), role: 'private' })
  const options = await newestOptionsFile(src)
  if (options !== null) {
    const path = join(dst, options)
    if (!(await copyIfPresent(join(src, options), path))) return null
    files.push({ name: options, path, size: (await stat(path)).size, role: 'private' })
  }
  return files
}

/** Copies a file; false when it is gone (RocksDB replaced it meanwhile). */
async function copyIfPresent(from: string, to: string): Promise<boolean> {
  try {
    await copyFile(from, to)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw storageError(e, `copying ${from}`)
  }
}

async function newestOptionsFile(dir: string): Promise<string | null> {
  let newest: { name: string; n: number } | null = null
  for (const name of await readdir(dir)) {
    const m = OPTIONS_NAME.exec(name)
    if (m !== null && (newest === null || Number(m[1]) > newest.n)) newest = { name, n: Number(m[1]) }
  }
  return newest?.name ?? null
}

function storageError(e: unknown, what: string): FlussError {
  const detail = e instanceof Error ? e.message : String(e)
  return new FlussError('KV_STORAGE_EXCEPTION', `${what}: ${detail}`, { cause: e })
}
