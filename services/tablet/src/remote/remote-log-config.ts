import {
  type Configuration,
  REMOTE_DATA_DIR,
  REMOTE_LOG_TASK_INTERVAL_DURATION,
  REMOTE_LOG_TASK_MAX_UPLOAD_SEGMENTS,
  SLUICE_BLOBSTORE_URI,
} from '@sluice/core/config'
import type { RemoteLogManagerOptions } from './remote-log-manager.js'

/** The server options of RemoteLogManagerOptions, read from the server configuration. */
export type RemoteLogServerSettings = Pick<
  RemoteLogManagerOptions,
  'taskIntervalMs' | 'maxUploadSegments' | 'remoteDataDir'
>

/**
 * `remote.log.task-interval-duration`, `remote.log.task-max-upload-segments`, and the remote data
 * dir sent to clients: `remote.data.dir`, else `sluice.blobstore.uri` (the BlobStore's own root;
 * both must name the same place, since clients compute object paths under it).
 */
export function remoteLogServerSettings(conf: Configuration): RemoteLogServerSettings {
  return {
    taskIntervalMs: conf.get(REMOTE_LOG_TASK_INTERVAL_DURATION),
    maxUploadSegments: conf.get(REMOTE_LOG_TASK_MAX_UPLOAD_SEGMENTS),
    remoteDataDir: conf.getOptional(REMOTE_DATA_DIR) ?? conf.get(SLUICE_BLOBSTORE_URI),
  }
}
