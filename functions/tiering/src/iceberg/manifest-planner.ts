import { lakeManifestKey } from '@sluice/core/blobstore'
import {
  type DataFile,
  EntryStatus,
  ManifestContent,
  type ManifestContext,
  type ManifestEntry,
  type ManifestFile,
  readManifest,
  summarizeManifest,
  uuidV7,
  writeManifest,
} from '@sluice/lake/iceberg'
import type { LakeFileIO } from '@sluice/lake/io'

/**
 * Which manifests a new snapshot lists. Files added by the commit go into fresh manifests (one
 * for data, one for deletes) whose entries inherit the snapshot's sequence number, so the same
 * manifests serve every commit attempt. The parent's manifests are carried over unchanged, except
 * that once more than `mergeMinCount` manifests of one kind would be listed, they are merged into
 * one (Java's MergeAppend): earlier entries become EXISTING with their sequence numbers and
 * snapshot ids made explicit, DELETED entries are dropped.
 */

export interface AddedManifest {
  readonly location: string
  readonly length: number
  readonly content: ManifestContent
  readonly entries: readonly ManifestEntry[]
}

export type ManifestContextOf = (content: ManifestContent) => ManifestContext

export async function writeAddedManifests(
  io: LakeFileIO,
  contextOf: ManifestContextOf,
  tableLocation: string,
  snapshotId: bigint,
  files: readonly DataFile[],
  nowMs: number,
): Promise<AddedManifest[]> {
  const out: AddedManifest[] = []
  const stem = uuidV7(nowMs)
  for (const content of [ManifestContent.DATA, ManifestContent.DELETES]) {
    const ofKind = files.filter(f => (f.content === 0) === (content === ManifestContent.DATA))
    if (ofKind.length === 0) continue
    const entries = ofKind.map(dataFile => ({
      status: EntryStatus.ADDED,
      snapshotId,
      sequenceNumber: null,
      fileSequenceNumber: null,
      dataFile,
    }))
    const bytes = writeManifest(entries, contextOf(content))
    const location = lakeManifestKey(tableLocation, stem, content)
    await io.write(location, bytes, true)
    out.push({ location, length: bytes.length, content, entries })
  }
  return out
}

export interface ManifestPlan {
  readonly manifests: ManifestFile[]
  /** Merged manifests written for this attempt (delete them if the attempt fails). */
  readonly written: string[]
  /** Added manifests folded into a merged manifest: unreferenced once the commit succeeds. */
  readonly folded: string[]
}

export interface PlanInput {
  readonly io: LakeFileIO
  readonly contextOf: ManifestContextOf
  readonly tableLocation: string
  readonly carried: readonly ManifestFile[]
  readonly added: readonly AddedManifest[]
  readonly snapshotId: bigint
  readonly sequenceNumber: number
  readonly specId: number
  readonly mergeMinCount: number
  readonly nowMs: number
}

function listed(m: AddedManifest, input: PlanInput): ManifestFile {
  const ctx = input.contextOf(m.content)
  return summarizeManifest(m.entries, ctx.partitionFields, {
    manifestPath: m.location,
    manifestLength: m.length,
    specId: ctx.spec['spec-id'],
    content: m.content,
    snapshotId: input.snapshotId,
    sequenceNumber: input.sequenceNumber,
  })
}

/** An entry of an older manifest as it is rewritten into a merged one. */
function asExisting(e: ManifestEntry, m: ManifestFile): ManifestEntry {
  const inherited = e.status === EntryStatus.ADDED
  return {
    status: EntryStatus.EXISTING,
    snapshotId: e.snapshotId ?? m.addedSnapshotId,
    sequenceNumber: e.sequenceNumber ?? (inherited ? m.sequenceNumber : 0),
    fileSequenceNumber: e.fileSequenceNumber ?? (inherited ? m.sequenceNumber : 0),
    dataFile: e.dataFile,
  }
}

export async function planManifests(input: PlanInput): Promise<ManifestPlan> {
  const plan: ManifestPlan = { manifests: [], written: [], folded: [] }
  const carriedOther = input.carried.filter(m => m.partitionSpecId !== input.specId)
  for (const content of [ManifestContent.DATA, ManifestContent.DELETES]) {
    const added = input.added.filter(m => m.content === content)
    const carried = input.carried.filter(m => m.content === content && m.partitionSpecId === input.specId)
    if (added.length + carried.length <= input.mergeMinCount) {
      plan.manifests.push(...added.map(m => listed(m, input)), ...carried)
      continue
    }
    const entries: ManifestEntry[] = added.flatMap(m => m.entries)
    for (const m of carried) {
      const { entries: old } = readManifest(await input.io.read(m.manifestPath), m.partitionSpecId)
      for (const e of old) if (e.status !== EntryStatus.DELETED) entries.push(asExisting(e, m))
    }
    const bytes = writeManifest(entries, input.contextOf(content))
    const location = lakeManifestKey(input.tableLocation, uuidV7(input.nowMs), content)
    await input.io.write(location, bytes, true)
    plan.written.push(location)
    plan.folded.push(...added.map(m => m.location))
    plan.manifests.push(listed({ location, length: bytes.length, content, entries }, input))
  }
  plan.manifests.push(...carriedOther)
  return plan
}
