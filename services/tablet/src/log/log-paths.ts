import { join } from 'node:path'

import { offsetFileName } from '@sluice/core/record'

export {
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  offsetFileName,
  parseOffsetFileName,
  TIME_INDEX_FILE_SUFFIX,
  WRITER_SNAPSHOT_FILE_SUFFIX,
} from '@sluice/core/record'

/** Other files in a bucket's log directory. */
export const HIGH_WATERMARK_CHECKPOINT_FILE = 'high-watermark.checkpoint'
/** Present only between a clean close and the next open. */
export const CLEAN_SHUTDOWN_FILE = '.clean-shutdown'
export const TEMP_FILE_SUFFIX = '.tmp'

export function offsetFilePath(dir: string, offset: number, suffix: string): string {
  return join(dir, offsetFileName(offset, suffix))
}
