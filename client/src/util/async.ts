/** A promise with its resolve and reject exposed. */
export interface Deferred<T> {
  readonly promise: Promise<T>
  resolve(value: T): void
  reject(error: unknown): void
}

/** A new Deferred. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

/** First delay between retries of a failed request (doubling on each further attempt). */
export const RETRY_BACKOFF_BASE_MS = 50
/** Longest delay between retries of a failed request. */
export const RETRY_BACKOFF_MAX_MS = 1000
