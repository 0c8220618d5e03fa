import CGStreamer
import Foundation
import OtonSupport

/// A cover inside the file or stream (an MP3's ID3v2 APIC frame, a FLAC or Ogg picture block):
/// GStreamer's demuxers hand it over as the `image` tag, a sample of the image's bytes. It is
/// written, at most ``maxBytes``, to `$XDG_CACHE_HOME/oton/embedded-covers/` under a name made of
/// its content (the same cover is written once) and given to plugins as the track's
/// `artwork_url` (a file: URL); the artwork plugin checks it as it checks a download.
package enum EmbeddedCover {
    /// The artwork plugin's own limit for an image (ArtworkConfig.maxImageBytes).
    package static let maxBytes = 10 << 20
    /// Covers kept; the oldest go first.
    package static let keptFiles = 32

    package enum Found: Equatable {
        case none
        case file(URL)
        /// The cover's size in bytes, over ``maxBytes``: not used.
        case tooLarge(Int)
        case unwritable(String)
    }

    /// The `image` tag of `tags`, written to `directory` (nil: the cache's).
    package static func read(_ tags: UnsafeMutablePointer<GstTagList>, directory: String? = nil) -> Found {
        var sample: OpaquePointer?
        guard gst_tag_list_get_sample_index(tags, "image", 0, &sample) != 0, let sample else { return .none }
        defer { otgst_sample_unref(sample) }
        guard let buffer = gst_sample_get_buffer(sample) else { return .none }
        let size = Int(gst_buffer_get_size(buffer))
        guard size > 0 else { return .none }
        guard size <= maxBytes else { return .tooLarge(size) }
        var bytes = [UInt8](repeating: 0, count: size)
        let copied = bytes.withUnsafeMutableBytes { gst_buffer_extract(buffer, 0, $0.baseAddress, gsize(size)) }
        guard Int(copied) == size else { return .none }
        return store(bytes, in: directory ?? defaultDirectory)
    }

    package static var defaultDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? (NSHomeDirectory() + "/.cache")
        return cache + "/oton/embedded-covers"
    }

    /// Writes `bytes` as `cover-HASH` (unless it is there), then trims the folder to ``keptFiles``.
    package static func store(_ bytes: [UInt8], in directory: String) -> Found {
        let path = directory + "/cover-" + fingerprint(bytes)
        if FileManager.default.fileExists(atPath: path) { return .file(URL(fileURLWithPath: path)) }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = path + ".tmp-\(getpid())"
            guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                return .unwritable(tr("cannot write {path}", ["path": temporary]))
            }
            guard rename(temporary, path) == 0 else {
                unlink(temporary)
                return .unwritable(tr("cannot write {path}", ["path": path]))
            }
        } catch {
            return .unwritable("\(error)")
        }
        trim(directory)
        return .file(URL(fileURLWithPath: path))
    }

    /// 64-bit FNV-1a of the bytes and their count: a name, not a security measure (the file is
    /// checked as an image by whoever reads it).
    package static func fingerprint(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16) + "-" + String(bytes.count)
    }

    private static func trim(_ directory: String) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return }
        let covers = names.filter { $0.hasPrefix("cover-") && !$0.contains(".tmp-") }.compactMap { name -> (String, Date)? in
            let path = directory + "/" + name
            guard let date = (try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return nil }
            return (path, date)
        }
        guard covers.count > keptFiles else { return }
        for (path, _) in covers.sorted(by: { $0.1 < $1.1 }).prefix(covers.count - keptFiles) { unlink(path) }
    }
}
