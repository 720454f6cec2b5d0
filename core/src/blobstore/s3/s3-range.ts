import type { Readable } from 'node:stream'
import type { GetObjectCommandOutput } from '@aws-sdk/client-s3'
import { FlussError } from '../../errors/index.js'
import type { BlobInfo, ByteRange } from '../blob-store.js'
import { sliceStream } from '../body.js'

/** An HTTP range to send: `[start, end)` and its `Range` header. */
export interface RequestedRange {
  readonly start: number
  readonly end?: number
  readonly header: string
}

/**
 * The HTTP range to ask for. Suffix ranges are resolved with a HEAD first (some emulators answer
 * `bytes=-n` wrongly), and empty ranges, which HTTP cannot express, are answered locally.
 */
export async function requestedRange(
  range: ByteRange | undefined,
  head: () => Promise<BlobInfo | undefined>,
): Promise<RequestedRange | undefined | 'missing' | 'empty'> {
  if (range === undefined) return undefined
  if ('suffixBytes' in range) {
    const info = await head()
    if (info === undefined) return 'missing'
    const start = Math.max(0, info.size - range.suffixBytes)
    return start >= info.size ? 'empty' : { start, end: info.size, header: `bytes=${start}-${info.size - 1}` }
  }
  const { start, end } = range
  if (end === start) return (await head()) === undefined ? 'missing' : 'empty'
  return { start, end, header: end === undefined ? `bytes=${start}-` : `bytes=${start}-${end - 1}` }
}

/**
 * Checks the served range against the requested one and cuts the body down when the server sent
 * more (some emulators answer `bytes=0-0` with the whole object, or ignore Range altogether).
 */
export function trimToRange(
  key: string,
  body: Readable,
  req: RequestedRange,
  out: GetObjectCommandOutput,
): Readable {
  const served = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(out.ContentRange ?? '')
  const servedStart = served === null ? 0 : Number(served[1])
  if (servedStart > req.start) {
    body.destroy()
    throw new FlussError(
      'STORAGE_EXCEPTION',
      `get ${key}: asked for bytes from ${req.start}, the server sent bytes from ${servedStart}`,
    )
  }
  const skip = req.start - servedStart
  const limit = req.end === undefined ? undefined : req.end - req.start
  const servedBytes = out.ContentLength
  if (skip === 0 && (limit === undefined || (servedBytes !== undefined && servedBytes <= limit))) return body
  return sliceStream(body, skip, limit)
}
