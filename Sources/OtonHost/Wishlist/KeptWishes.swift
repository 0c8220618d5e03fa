import Foundation
import OtonJSON
import OtonSupport
import Synchronization

/// The wishes `oton record --wishlist` already kept: `$XDG_DATA_HOME/oton/wishes-kept.json`
/// (default `~/.local/share`), `{"kept": {"<identity>": {"station": …, "file": …, "at": …}}}` keyed by
/// ``WishIdentity``. Read once when the recorder starts and re-read under the folder's lock before
/// each addition (several recorders share it), replaced atomically. A damaged file is never
/// overwritten: the recorder says so and keeps nothing new in it until it is repaired.
public final class KeptWishes: Sendable {
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    public static let maxBytes = 16 << 20
    public let path: String
    private let identities: Mutex<Set<String>>

    public static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        (XDGPaths(environment: environment).otonData ?? NSTemporaryDirectory() + "oton") + "/wishes-kept.json"
    }

    public init(path: String = KeptWishes.path()) throws(Failure) {
        self.path = path
        identities = Mutex(Set(try Self.read(path).keys))
    }

    public func contains(_ identity: String) -> Bool {
        identities.withLock { $0.contains(identity) }
    }

    /// Records that `identity` was kept (from `station`, as `file`).
    public func add(_ identity: String, station: String, file: String) throws(Failure) {
        identities.withLock { _ = $0.insert(identity) }
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try ConfigFolderLock.holding(path) { () throws(Failure) in
            var kept = try Self.read(path)
            kept[identity] = .object([
                "station": .string(station), "file": .string(file),
                "at": .string(TimeText.iso8601(Date())),
            ])
            do {
                try AtomicFileWriter.write(Data((JSONValue.object(["kept": .object(kept)]).prettyJSONText + "\n").utf8), to: path)
            } catch {
                throw Failure(description: "\(error)")
            }
        }
    }

    private static func read(_ path: String) throws(Failure) -> [String: JSONValue] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [:] }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        do {
            guard case let .object(members) = try JSONValue.parse(data, maxBytes: maxBytes), case let .object(kept)? = members["kept"] else {
                throw Failure(description: tr("{path} has no \"kept\" object", ["path": path]))
            }
            return kept
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(
                description: tr(
                    "{path} cannot be read ({reason}); it was left as it is: repair or remove it (removing forgets which wishes were kept)",
                    ["path": path, "reason": "\(error)"]))
        }
    }
}
