import FileSinkLogic
import PluginAPI

extension Recorder {
    /// Something to tell the host about.
    enum Notice {
        case started(path: String, metadata: TrackMetadata?)
        case finished(
            path: String?, name: String, seconds: Double, bytes: UInt64, complete: Bool, status: RecordingIndex.Track.Status, reason: String?,
            reasonCode: String?, sequence: UInt64?)
        /// An archive segment ended (its ledger says the rest).
        case archived(path: String, seconds: Double, bytes: UInt64, status: String)
        case stopped(reason: StopReason, message: String, isError: Bool)
        case log(level: LogLevel, message: String)
    }

    /// Why recording stopped. The raw value is the `reason` field of OTON_EVENT_NAME_RECORDING_STOPPED.
    enum StopReason: String {
        case writeFailed = "write-failed"
        case maxSize = "max-size"
        case maxDuration = "max-duration"
        case diskFull = "disk-full"

        /// False when the disk failed or filled: tagging copies a file, so it is skipped then.
        /// The size and duration limits are the user's, not the disk's: files are still tagged.
        var diskHasRoom: Bool { self == .maxSize || self == .maxDuration }
    }

    /// How a log notice is written to the host's log.
    enum LogLevel {
        case info, warning, error

        var abiLevel: oton_log_level {
            switch self {
            case .info: OTON_LOG_INFO
            case .warning: OTON_LOG_WARNING
            case .error: OTON_LOG_ERROR
            }
        }
    }
}
