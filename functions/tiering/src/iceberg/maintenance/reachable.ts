import type { Snapshot } from '@sluice/lake/iceberg'
import { readManifest, readManifestList } from '@sluice/lake/iceberg'
import type { LakeFileIO } from '@sluice/lake/io'

/**
 * Every file a set of snapshots references: their manifest lists, the manifests those list, and
 * the data and delete files of every entry (whatever its status), as Iceberg's reachable-file
 * cleanup computes it. Manifests are read once per call.
 */
export class ReachableFiles {
  private readonly manifestFiles = new Map<string, readonly string[]>()

  constructor(private readonly io: LakeFileIO) {}

  private async filesOf(manifestPath: string, specId: number): Promise<readonly string[]> {
    let files = this.manifestFiles.get(manifestPath)
    if (files === undefined) {
      const { entries } = readManifest(await this.io.read(manifestPath), specId)
      files = entries.map(e => e.dataFile.filePath)
      this.manifestFiles.set(manifestPath, files)
    }
    return files
  }

  /**
   * With `skipMissing`, manifest lists and manifests that no longer exist are skipped (files of
   * expired snapshots a crashed cleanup already removed); otherwise they are an error.
   */
  async of(snapshots: readonly Snapshot[], skipMissing = false): Promise<Set<string>> {
    const out = new Set<string>()
    const read = async (location: string) =>
      skipMissing ? this.io.readIfExists(location) : this.io.read(location)
    for (const s of snapshots) {
      const list = s['manifest-list']
      out.add(list)
      const bytes = await read(list)
      if (bytes === undefined) continue
      for (const m of readManifestList(bytes)) {
        out.add(m.manifestPath)
        if (skipMissing && (await this.io.size(m.manifestPath)) === undefined) continue
        for (const f of await this.filesOf(m.manifestPath, m.partitionSpecId)) out.add(f)
      }
    }
    return out
  }
}
