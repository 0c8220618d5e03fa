import ArtworkLogic
import CGdkPixbuf
import FoundationEssentials

/// Images by source URL: memory, then disk, then (for the caller) the network.
/// On disk, files are content-addressed (`<sha256>.<ext>`), an index maps each
/// URL's hash to its file and colour, the total is bounded and the least
/// recently used files are evicted. Used from the plugin's worker queue only.
final class ArtworkCache {
    struct Entry: Equatable {
        var path: String
        var color: String
    }

    let directory: String
    private let maxBytes: Int
    private var memory: [String: Entry] = [:]
    private var memoryOrder: [String] = []
    private static let memoryEntries = 64

    init(directory: String, maxBytes: Int) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        try FileManager.default.createDirectory(
            atPath: directory + "/index", withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
    }

    /// A cached image for `url`, without the network. Marks it used.
    func lookup(_ url: String) -> Entry? {
        if let entry = memory[url], FileManager.default.fileExists(atPath: entry.path) {
            touch(entry.path)
            remember(url, entry)
            return entry
        }
        let index = indexPath(for: url)
        guard let text = try? String(contentsOfFile: index, encoding: .utf8) else { return nil }
        let parts = text.split(separator: " ").map(String.init)
        guard parts.count == 2, !parts[0].contains("/"), parts[1].hasPrefix("#") else { return nil }
        let path = directory + "/" + parts[0]
        guard FileManager.default.fileExists(atPath: path) else {
            try? FileManager.default.removeItem(atPath: index)  // evicted meanwhile
            return nil
        }
        touch(path)
        let entry = Entry(path: path, color: parts[1])
        remember(url, entry)
        return entry
    }

    /// Moves a validated download into the cache under its content hash and indexes it.
    func store(url: String, download: String, bytes: [UInt8], format: String, color: String) throws -> Entry {
        let name = Self.sha256(bytes) + "." + (format == "jpeg" ? "jpg" : format)
        let path = directory + "/" + name
        if FileManager.default.fileExists(atPath: path) {
            try? FileManager.default.removeItem(atPath: download)
            touch(path)
        } else {
            guard rename(download, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
        let index = indexPath(for: url)
        let temporary = index + ".tmp"
        try "\(name) \(color)".write(toFile: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary, index) == 0 else { throw CocoaError(.fileWriteUnknown) }
        let entry = Entry(path: path, color: color)
        remember(url, entry)
        evict(keeping: path)
        return entry
    }

    /// A fresh file name for a download in progress (same file system, so the final rename is atomic).
    func downloadPath() -> String {
        directory + "/.download-\(UUID().uuidString)"
    }

    private func evict(keeping kept: String) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return }
        let files: [CacheEviction.File] = names.compactMap { name in
            guard !name.hasPrefix("."), name != "index",
                let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name),
                let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
            else { return nil }
            return CacheEviction.File(name: name, size: size, lastUse: modified.timeIntervalSince1970)
        }
        for victim in CacheEviction.victims(files, limit: maxBytes) where directory + "/" + victim != kept {
            try? manager.removeItem(atPath: directory + "/" + victim)
            memory = memory.filter { $0.value.path != directory + "/" + victim }
        }
    }

    private func remember(_ url: String, _ entry: Entry) {
        memory[url] = entry
        memoryOrder.removeAll { $0 == url }
        memoryOrder.append(url)
        while memoryOrder.count > Self.memoryEntries { memory[memoryOrder.removeFirst()] = nil }
    }

    private func touch(_ path: String) {
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
    }

    private func indexPath(for url: String) -> String {
        directory + "/index/" + Self.sha256(Array(url.utf8))
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        let digest = bytes.withUnsafeBufferPointer { g_compute_checksum_for_data(G_CHECKSUM_SHA256, $0.baseAddress, gsize($0.count)) }
        defer { g_free(digest) }
        return digest.map { String(cString: $0) } ?? UUID().uuidString
    }
}
