import { FlussError } from '../../errors/index.js'
import {
  awsError,
  httpStatusOf,
  isTransientAwsError,
  sdkErrorName,
  storageException,
  unexpectedAwsError,
} from '../../metastore/aws-errors.js'

/** S3 errors that mean "no such object" (GetObject says NoSuchKey, HeadObject only a bare 404). */
export function isS3NotFound(e: unknown): boolean {
  const name = sdkErrorName(e)
  return name === 'NoSuchKey' || name === 'NotFound' || (httpStatusOf(e) === 404 && name !== 'NoSuchBucket')
}

/** A range that starts at or past the end of the object. */
export function isS3InvalidRange(e: unknown): boolean {
  return sdkErrorName(e) === 'InvalidRange' || httpStatusOf(e) === 416
}

/** Translates an S3 SDK error into a FlussError; the only place that names S3 error codes. */
export function translateS3Error(what: string, e: unknown, bucket: string): FlussError {
  if (e instanceof FlussError) return e
  const name = sdkErrorName(e)
  const status = httpStatusOf(e)
  if (name === 'PreconditionFailed' || status === 412 || name === 'ConditionalRequestConflict') {
    return awsError('LAKE_COMMIT_CONFLICT', `${what}: a concurrent writer won`, e)
  }
  if (isTransientAwsError(e)) return storageException(what, e)
  if (name === 'NoSuchBucket')
    return awsError('INVALID_CONFIG_EXCEPTION', `${what}: bucket '${bucket}' does not exist`, e)
  if (
    name === 'EntityTooSmall' ||
    name === 'InvalidArgument' ||
    name === 'InvalidPart' ||
    name === 'KeyTooLongError'
  ) {
    return awsError('INVALID_REQUEST', `${what} refused`, e)
  }
  return unexpectedAwsError(what, e)
}
