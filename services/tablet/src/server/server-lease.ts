import { isFlussError } from '@sluice/core/errors'
import type { Clock } from '@sluice/core/util'
import type {
  ControlPlane,
  TabletServerLease,
  TabletServerRegistration,
} from '../control-plane/control-plane.js'

export interface ServerLeaseSettings {
  readonly leaseDurationMs: number
  readonly heartbeatIntervalMs: number
  /** How long `acquire` waits for a previous incarnation's lease to lapse. */
  readonly registerTimeoutMs: number
}

/**
 * Holds this tablet server's membership lease: registers it at start (waiting out a previous
 * incarnation's live lease), renews it every heartbeat, releases it on stop. When a renewal finds
 * the lease taken over, or the lease lapses while the store is unreachable, the server is fenced
 * (it stops taking writes) until it manages to register again. Fencing of stale leaders is done
 * by epochs; this only keeps a server that the coordinator may consider dead from taking writes.
 */
export class ServerLeaseKeeper {
  #lease: TabletServerLease | undefined
  #fenced = false
  #timer: NodeJS.Timeout | undefined
  #tick: Promise<void> | undefined
  #stopped = false

  constructor(
    private readonly controlPlane: ControlPlane,
    private readonly registration: TabletServerRegistration,
    private readonly settings: ServerLeaseSettings,
    private readonly clock: Clock,
    private readonly warn: (message: string, error?: unknown) => void,
  ) {}

  get fenced(): boolean {
    return this.#fenced
  }

  get lease(): TabletServerLease | undefined {
    return this.#lease
  }

  /** Registers, retrying while another incarnation's lease is live, then starts the heartbeat. */
  async acquire(): Promise<TabletServerLease> {
    const deadlineMs = this.clock.nowMs() + this.settings.registerTimeoutMs
    for (;;) {
      try {
        this.#lease = await this.controlPlane.registerTabletServer(
          this.registration,
          this.settings.leaseDurationMs,
        )
        break
      } catch (e) {
        // A live lease of the id (a previous incarnation that has not lapsed yet, e.g. a restart on
        // another port) is waited out; after the deadline it is the duplicate id it looks like.
        const waitable = isFlussError(e) && (e.retriable || e.is('INVALID_CONFIG_EXCEPTION'))
        if (!waitable || this.clock.nowMs() >= deadlineMs || this.#stopped) throw e
        this.warn(`registering tablet server ${this.registration.serverId} failed, retrying`, e)
        await new Promise(resolve => setTimeout(resolve, this.settings.heartbeatIntervalMs))
      }
    }
    this.#fenced = false
    this.#schedule()
    return this.#lease
  }

  /** Stops the heartbeat and gives the lease up. */
  async release(): Promise<void> {
    this.#stopped = true
    clearTimeout(this.#timer)
    await this.#tick
    const lease = this.#lease
    this.#lease = undefined
    if (lease !== undefined) await this.controlPlane.releaseTabletServerLease(lease)
  }

  #schedule(): void {
    if (this.#stopped) return
    this.#timer = setTimeout(() => {
      this.#tick = this.#heartbeat().finally(() => this.#schedule())
    }, this.settings.heartbeatIntervalMs)
  }

  async #heartbeat(): Promise<void> {
    const lease = this.#lease
    try {
      if (this.#fenced || lease === undefined) {
        this.#lease = await this.controlPlane.registerTabletServer(
          this.registration,
          this.settings.leaseDurationMs,
        )
        this.#fenced = false
        this.warn(`tablet server ${this.registration.serverId} registered again; taking writes`)
        return
      }
      this.#lease = await this.controlPlane.renewTabletServerLease(lease, this.settings.leaseDurationMs)
    } catch (e) {
      if (isFlussError(e, 'METASTORE_CONFLICT')) {
        this.#fence('its lease was taken over', e)
      } else if (lease === undefined || this.clock.nowMs() >= lease.expiresAtMs) {
        this.#fence('its lease lapsed while the metadata store was unreachable', e)
      } else {
        this.warn(`renewing the lease of tablet server ${this.registration.serverId} failed`, e)
      }
    }
  }

  #fence(reason: string, e: unknown): void {
    if (!this.#fenced)
      this.warn(`tablet server ${this.registration.serverId} stops taking writes: ${reason}`, e)
    this.#fenced = true
  }
}
