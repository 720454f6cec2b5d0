import type { Catalog, TabletServerLeaseRecord } from '@sluice/core/catalog'

export interface MembershipChange {
  /** Servers that came up: new ids, returning ids, and restarts (a new incarnation). */
  readonly added: readonly TabletServerLeaseRecord[]
  /** Servers that went away: expired or released leases, and the old incarnation of a restart. */
  readonly removed: readonly TabletServerLeaseRecord[]
}

/**
 * The live tablet servers as the coordinator last saw them, from the lease items. A server is live
 * while its lease has not expired by the coordinator's clock. `poll` reads the leases again and
 * reports the difference; a restart (same id, new incarnation) is a removal plus an addition, since
 * the restarted process has lost its in-memory replica state.
 */
export class TabletServerMembership {
  readonly #catalog: Catalog
  #live = new Map<number, TabletServerLeaseRecord>()

  constructor(catalog: Catalog) {
    this.#catalog = catalog
  }

  async poll(): Promise<MembershipChange> {
    const now = this.#catalog.nowMs()
    const leases = await this.#catalog.listTabletServerLeases()
    const next = new Map(leases.filter(l => l.leaseExpiresAtMs > now).map(l => [l.serverId, l]))
    const added: TabletServerLeaseRecord[] = []
    const removed: TabletServerLeaseRecord[] = []
    for (const [id, lease] of next) {
      const known = this.#live.get(id)
      if (known === undefined) added.push(lease)
      else if (known.incarnation !== lease.incarnation) {
        removed.push(known)
        added.push(lease)
      }
    }
    for (const [id, known] of this.#live) if (!next.has(id)) removed.push(known)
    this.#live = next
    return { added, removed }
  }

  /** Forgets every server (a standby keeps no view of the cluster). */
  reset(): void {
    this.#live = new Map()
  }

  live(): TabletServerLeaseRecord[] {
    return [...this.#live.values()].sort((a, b) => a.serverId - b.serverId)
  }

  liveIds(): Set<number> {
    return new Set(this.#live.keys())
  }

  get(serverId: number): TabletServerLeaseRecord | undefined {
    return this.#live.get(serverId)
  }
}
