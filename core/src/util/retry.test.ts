import { describe, expect, it } from 'vitest'
import { FlussError } from '../errors/index.js'
import {
  backoffMs,
  DEFAULT_RETRY_POLICY,
  isRetriable,
  type RetryHooks,
  retry,
  withRetry,
  withTimeout,
} from './retry.js'

const policy = { ...DEFAULT_RETRY_POLICY, maxAttempts: 4, initialBackoffMs: 100, maxBackoffMs: 300 }

function hooks(sleeps: number[], cancelled = () => false): RetryHooks {
  return {
    sleep: async ms => void sleeps.push(ms),
    random: () => 1,
    isCancelled: cancelled,
    onRetry: () => {},
  }
}

describe('withRetry', () => {
  it('backs off exponentially up to the cap and gives up after maxAttempts', async () => {
    const sleeps: number[] = []
    let calls = 0
    const err = await withRetry('op', policy, hooks(sleeps), async () => {
      calls++
      throw new FlussError('STORAGE_EXCEPTION', 's3 down')
    }).catch(e => e)
    expect(err).toMatchObject({ errorName: 'STORAGE_EXCEPTION' })
    expect(calls).toBe(4)
    expect(sleeps).toEqual([100, 200, 300])
    expect(backoffMs(policy, 1, () => 0)).toBe(50)
  })

  it('does not retry non-retriable failures or lost conditional writes', async () => {
    expect(isRetriable(new FlussError('INVALID_REQUEST'))).toBe(false)
    expect(isRetriable(new FlussError('METASTORE_CONFLICT'))).toBe(false)
    expect(isRetriable(new Error('plain'))).toBe(false)
    expect(isRetriable(new FlussError('REQUEST_TIME_OUT'))).toBe(true)
    let calls = 0
    await expect(
      withRetry('op', policy, hooks([]), async () => {
        calls++
        throw new FlussError('INVALID_REQUEST', 'bad key')
      }),
    ).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' })
    expect(calls).toBe(1)
  })

  it('succeeds after transient failures and stops once cancelled', async () => {
    let calls = 0
    const value = await withRetry('op', policy, hooks([]), async () => {
      if (++calls < 3) throw new FlussError('STORAGE_EXCEPTION', 'flaky')
      return 'ok'
    })
    expect([value, calls]).toEqual(['ok', 3])
    await expect(
      withRetry(
        'op',
        policy,
        hooks([], () => true),
        async () => 'never',
      ),
    ).rejects.toMatchObject({
      errorName: 'NOT_LEADER_OR_FOLLOWER',
    })
  })

  it('turns a call that never settles into REQUEST_TIME_OUT', async () => {
    await expect(withTimeout('hang', 5, () => new Promise(() => {}))).rejects.toMatchObject({
      errorName: 'REQUEST_TIME_OUT',
    })
  })
})

describe('withRetry when stopped', () => {
  it('names what was stopped', async () => {
    const err = await withRetry(
      'upload',
      policy,
      hooks([], () => true),
      async () => 'never',
      'task stopped',
    ).catch(e => e)
    expect(err).toMatchObject({ errorName: 'NOT_LEADER_OR_FOLLOWER' })
    expect((err as FlussError).message).toContain('upload: task stopped')
  })
})

describe('retry', () => {
  const transient = (e: unknown) => e instanceof Error && e.message === 'transient'

  it('retries retriable failures with the given delays until the attempts are used up', async () => {
    const sleeps: number[] = []
    const retried: number[] = []
    let calls = 0
    const err = await retry(
      async () => {
        calls++
        throw new Error('transient')
      },
      {
        maxAttempts: 3,
        retriable: transient,
        delayMs: attempt => attempt * 10,
        sleep: async ms => void sleeps.push(ms),
        onRetry: attempt => retried.push(attempt),
      },
    ).catch(e => e)
    expect((err as Error).message).toBe('transient')
    expect([calls, sleeps, retried]).toEqual([3, [10, 20], [1, 2]])
  })

  it('throws other failures at once and gives up when beforeAttempt throws', async () => {
    let calls = 0
    const options = { maxAttempts: 5, retriable: transient, delayMs: () => 0 }
    await expect(
      retry(async () => {
        calls++
        throw new Error('fatal')
      }, options),
    ).rejects.toThrow('fatal')
    expect(calls).toBe(1)
    let checks = 0
    await expect(
      retry(
        async () => {
          throw new Error('transient')
        },
        {
          ...options,
          beforeAttempt: () => {
            if (++checks === 2) throw new Error('stopped')
          },
        },
      ),
    ).rejects.toThrow('stopped')
  })

  it('returns the first success', async () => {
    let calls = 0
    const value = await retry(
      async () => {
        if (++calls < 2) throw new Error('transient')
        return 'ok'
      },
      { maxAttempts: 3, retriable: transient, delayMs: () => 0 },
    )
    expect([value, calls]).toEqual(['ok', 2])
  })
})
