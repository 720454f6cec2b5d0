import {
  acquireCoordinatorLease,
  type Catalog,
  type CoordinatorLease,
  type CoordinatorLeaseRecord,
  releaseCoordinatorLease,
  renewCoordinatorLease,
} from '@sluice/core/control-plane'
import { isMetaStoreConflict } from '@sluice/core/metastore'
import type { Clock } from '@sluice/core/util'
import { type CoordinatorLogger, errorMessage } from '../server/coordinator-logger.js'

export interface ElectionListener {
  /** This coordinator now holds the lease with a new coordinatorEpoch. */
  onActive(lease: CoordinatorLeaseRecord): void
  /** This coordinator no longer holds the lease; it must stop acting at once. */
  onStandby(reason: string): void
}

export interface CoordinatorLeaderElectionOptions {
  readonly catalog: Catalog
  readonly clock: Clock
  /** Who this coordinator is and where it listens. */
  readonly candidate: () => Omit<CoordinatorLease, 'coordinatorEpoch' | 'leaseExpiresAtMs'>
  readonly leaseDurationMs: number
  readonly listener: ElectionListener
  readonly logger: CoordinatorLogger
}

/**
 * Election of the one active coordinator through the coordinator lease item. Each `tick` (every
 * `sluice.coordinator.lease-renew-interval`) renews a held lease, or tries to take an absent or
 * expired one, bumping coordinatorEpoch. A lost renewal (conditional write refused) or a lease that
 * ran out before it could be renewed makes this coordinator a standby at once. Time drives only
 * liveness; safety comes from the conditional writes.
 *
 * What the epoch fences: every coordinator write to a bucket item is conditioned on the item's
 * coordinatorEpoch not being newer than the writer's, so once a new coordinator has written a
 * bucket, a deposed one can no longer change it (its write fails, and it steps down). Writes that
 * create items (`version: 'absent'`) cannot carry such a condition; for them exclusivity rests on
 * the lease: a coordinator stops acting when its renewal fails, and renewals happen well before the
 * lease runs out, while a standby waits for the lease to run out by its own clock.
 */
export class CoordinatorLeaderElection {
  readonly #options: CoordinatorLeaderElectionOptions
  #held: CoordinatorLeaseRecord | undefined

  constructor(options: CoordinatorLeaderElectionOptions) {
    this.#options = options
  }

  /** The held lease while it has not run out by our own clock. */
  get lease(): CoordinatorLeaseRecord | undefined {
    const held = this.#held
    return held !== undefined && this.#options.clock.nowMs() < held.leaseExpiresAtMs ? held : undefined
  }

  get isActive(): boolean {
    return this.lease !== undefined
  }

  async tick(): Promise<void> {
    if (this.#held !== undefined) await this.#renew(this.#held)
    else await this.#tryAcquire()
  }

  /** Gives up leadership now (e.g. a write was fenced by a newer coordinator). */
  stepDown(reason: string): void {
    this.#becomeStandby(reason, 'warn')
  }

  /** Ends a held lease so a standby takes over without waiting for it to expire. */
  async release(): Promise<void> {
    const held = this.#held
    if (held === undefined) return
    this.#becomeStandby('shutting down', 'info')
    await releaseCoordinatorLease(this.#options.catalog, held)
  }

  #becomeStandby(reason: string, level: 'info' | 'warn'): void {
    if (this.#held === undefined) return
    this.#options.logger[level]('coordinator steps down', {
      reason,
      coordinatorEpoch: this.#held.coordinatorEpoch,
    })
    this.#held = undefined
    this.#options.listener.onStandby(reason)
  }

  async #tryAcquire(): Promise<void> {
    const { catalog, clock, leaseDurationMs } = this.#options
    const lease = await acquireCoordinatorLease(catalog, {
      ...this.#options.candidate(),
      leaseExpiresAtMs: clock.nowMs() + leaseDurationMs,
    })
    if (lease === undefined) return
    this.#held = lease
    this.#options.logger.info('coordinator is active', { coordinatorEpoch: lease.coordinatorEpoch })
    this.#options.listener.onActive(lease)
  }

  async #renew(held: CoordinatorLeaseRecord): Promise<void> {
    const { catalog, clock, leaseDurationMs } = this.#options
    try {
      const renewed = await renewCoordinatorLease(catalog, held, clock.nowMs() + leaseDurationMs)
      if (this.#held === held) this.#held = renewed
    } catch (e) {
      if (isMetaStoreConflict(e)) return this.stepDown('the coordinator lease was taken over')
      this.#options.logger.warn('coordinator lease renewal failed', { error: errorMessage(e) })
      if (clock.nowMs() >= held.leaseExpiresAtMs)
        this.stepDown('the coordinator lease ran out before it was renewed')
    }
  }
}
