import type { LocalCluster } from '@sluice/cli/cluster'

/**
 * Starts a killed tablet server again. The start is refused while the killed incarnation's
 * membership lease is still live; that is waited out (bounded by `timeoutMs`).
 */
export async function restartAfterKill(cluster: LocalCluster, id: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      await cluster.startTabletServer(id)
      return
    } catch (e) {
      if (!String(e).includes('is held by a live server') || Date.now() > deadline) throw e
      await new Promise(resolve => setTimeout(resolve, 100))
    }
  }
}
