import { type Catalog, mapBounded, type TabletServerLeaseRecord } from '@sluice/core/control-plane'
import type { ServerProbe } from './server-probe.js'

export interface MembershipChange {
  /** Servers that came up: new ids, returning ids, and restarts (a new incarnation). */
  readonly added: readonly TabletServerLeaseRecord[]
  /** Servers that went away: expired or released leases, and the old incarnation of a restart. */
  readonly removed: readonly TabletServerLeaseRecord[]
}

export interface MembershipOptions {
  /**
   * Checks each server with a live lease at every poll: one whose listener refuses connections is
   * treated as dead at once (until a new incarnation registers or it accepts connections again),
   * instead of after its lease runs out.
   */
  readonly probe?: ServerProbe
  /** Probes run at the same time. */
  readonly concurrency?: number
}

/**
 * The live tablet servers as the coordinator last saw them, from the lease items. A server is live
 * while its lease has not expired by the coordinator's clock and (with a probe) its listener does
 * not refuse connections. `poll` reads the leases again and reports the difference; a restart
 * (same id, new incarnation) is a removal plus an addition, since the restarted process has lost
 * its in-memory replica state.
 */
export class TabletServerMembership {
  readonly #catalog: Catalog
  readonly #options: MembershipOptions
  #live = new Map<number, TabletServerLeaseRecord>()
  /** Servers found refusing connections, by id, with the incarnation that refused. */
  readonly #refused = new Map<number, string>()

  constructor(catalog: Catalog, options: MembershipOptions = {}) {
    this.#catalog = catalog
    this.#options = options
  }

  async poll(): Promise<MembershipChange> {
    const now = this.#catalog.nowMs()
    const leases = (await this.#catalog.listTabletServerLeases()).filter(l => l.leaseExpiresAtMs > now)
    const reachable = await this.#probe(leases)
    const next = new Map(reachable.map(l => [l.serverId, l]))
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
    this.#refused.clear()
  }

  /** Tablet servers holding an unexpired lease now, live or not yet seen by a poll. */
  async registeredCount(): Promise<number> {
    const now = this.#catalog.nowMs()
    return (await this.#catalog.listTabletServerLeases()).filter(l => l.leaseExpiresAtMs > now).length
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

  /** The leases whose servers did not refuse a connection. */
  async #probe(leases: TabletServerLeaseRecord[]): Promise<TabletServerLeaseRecord[]> {
    const probe = this.#options.probe
    if (probe === undefined) return leases
    const results = await mapBounded(leases, this.#options.concurrency ?? 16, async lease => {
      const result = await probe(lease.host, lease.port)
      if (result === 'refused') this.#refused.set(lease.serverId, lease.incarnation)
      else if (result === 'alive') this.#refused.delete(lease.serverId)
      return this.#refused.get(lease.serverId) === lease.incarnation ? undefined : lease
    })
    return results.filter((l): l is TabletServerLeaseRecord => l !== undefined)
  }
}
