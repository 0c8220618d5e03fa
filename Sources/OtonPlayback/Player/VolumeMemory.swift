import Foundation
import Logging
import OtonSupport

/// The volume the listener set last (`ctl volume`, the keys, MPRIS, the web remote, the window), kept in
/// the state folder (``XDGPaths/volumeFile``) so that the next `oton play` without `--volume` starts
/// there, as Shortwave and PyRadio do. Fades, the alarm's rise and `--volume` itself are not remembered:
/// an alarm at 40 % does not change the listener's own level. A damaged file is said once and ignored.
/// Used on the player's queue only.
public final class VolumeMemory: @unchecked Sendable {
    /// A file larger than this is not one oton wrote.
    static let maxBytes = 4096

    public let file: String?
    private let logger: Logger
    private var saved: Int?

    public init(file: String? = XDGPaths().volumeFile, logger: Logger = Logger(label: "oton.volume")) {
        self.file = file
        self.logger = logger
    }

    /// The volume kept last, in percent (0 … ``VolumeArgument/maximumPercent``); nil when none is kept.
    public func lastPercent() -> Int? {
        guard let file, FileManager.default.fileExists(atPath: file) else { return nil }
        do {
            let percent = try Self.parse(try Data(contentsOf: URL(fileURLWithPath: file)))
            saved = percent
            return percent
        } catch {
            logger.warning("\(tr("{file} is damaged ({reason}); oton starts at 100 %", ["file": file, "reason": "\(error)"]))")
            return nil
        }
    }

    /// Keeps `volume` (0 … OutputVolume.maximum) as the listener's own; writes only when the percent changed.
    public func remember(_ volume: Double) {
        let percent = VolumeArgument.percent(of: volume)
        guard let file, percent != saved else { return }
        saved = percent
        let text = JSONValue.object(["version": 1, "percent": .number(Double(percent))]).jsonText + "\n"
        do {
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try AtomicFileWriter.write(Data(text.utf8), to: file)
        } catch {
            logger.warning("\(tr("cannot keep the volume in {file}: {reason}", ["file": file, "reason": "\(error)"]))")
        }
    }

    struct Damaged: Error, CustomStringConvertible {
        let description: String
    }

    /// The percent in a volume file, or why it is not one.
    package static func parse(_ data: Data) throws -> Int {
        guard data.count <= maxBytes else { throw Damaged(description: "larger than \(maxBytes) bytes") }
        let root = try JSONValue.parse(data, maxBytes: maxBytes)
        guard root["version"]?.numberValue == 1, let percent = root["percent"]?.numberValue,
            percent.rounded() == percent, (0...Double(VolumeArgument.maximumPercent)).contains(percent)
        else {
            throw Damaged(description: "not {\"version\": 1, \"percent\": 0–\(VolumeArgument.maximumPercent)}")
        }
        return Int(percent)
    }
}
