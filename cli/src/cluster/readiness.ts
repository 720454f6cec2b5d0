import { sleep } from '@sluice/core/util'

/**
 * What a coordinator's log says about its state: whether it is the active coordinator and which
 * tablet servers its membership sees live (registered, lease current, listener answering its
 * probe). The coordinator logs JSON lines: `coordinator state loaded` and `live tablet servers`
 * carry `liveServers`, `coordinator activated` and `coordinator steps down` its role.
 */
export class CoordinatorView {
  active = false
  readonly live = new Set<number>()

  accept(line: string): void {
    if (!line.startsWith('{')) return
    let entry: { message?: unknown; liveServers?: unknown }
    try {
      entry = JSON.parse(line)
    } catch {
      return
    }
    if (Array.isArray(entry.liveServers)) {
      this.live.clear()
      for (const id of entry.liveServers) if (typeof id === 'number') this.live.add(id)
    }
    if (entry.message === 'coordinator activated') this.active = true
    if (entry.message === 'coordinator steps down') {
      this.active = false
      this.live.clear()
    }
  }

  /** Active, and every one of `tabletIds` is live. */
  sees(tabletIds: Iterable<number>): boolean {
    if (!this.active) return false
    for (const id of tabletIds) if (!this.live.has(id)) return false
    return true
  }
}

const READY_POLL_MS = 25

/** Waits (bounded) until `ready()` holds; the error says what was still missing. */
export async function waitForReadiness(
  ready: () => boolean,
  timeoutMs: number,
  describe: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!ready()) {
    if (Date.now() > deadline)
      throw new Error(`the local cluster was not ready within ${timeoutMs} ms: ${describe()}`)
    await sleep(READY_POLL_MS)
  }
}
