import Foundation

/// A cover the host found inside the file or stream (an MP3's APIC frame) and wrote to its cache:
/// the track event names it with a file: URL. Read with the same size limit as a download.
enum EmbeddedCoverFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func read(_ url: String, maxBytes: Int) throws(Failure) -> Data {
        guard let parsed = URL(string: url), parsed.isFileURL, !parsed.path.isEmpty else { throw Failure(description: "not a file URL") }
        let path = parsed.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int
        else {
            throw Failure(description: "\(path) is not a readable file")
        }
        guard size <= maxBytes else { throw Failure(description: "\(path) is \(size >> 20) MiB, over the \(maxBytes >> 20) MiB an image may have") }
        guard let data = FileManager.default.contents(atPath: path), data.count <= maxBytes else {
            throw Failure(description: "cannot read \(path)")
        }
        return data
    }
}
