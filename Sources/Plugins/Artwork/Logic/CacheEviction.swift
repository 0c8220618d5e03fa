/// Least-recently-used eviction for the disk cache: which files to remove so the
/// total fits `limit` bytes. Files are kept most-recently-used first.
public enum CacheEviction {
    public struct File: Equatable, Sendable {
        public var name: String
        public var size: Int
        /// Last use (seconds, any monotone clock the caller keeps, e.g. the file's mtime).
        public var lastUse: Double

        public init(name: String, size: Int, lastUse: Double) {
            self.name = name
            self.size = size
            self.lastUse = lastUse
        }
    }

    public static func victims(_ files: [File], limit: Int) -> [String] {
        var total = files.reduce(0) { $0 + $1.size }
        var out: [String] = []
        for file in files.sorted(by: { ($0.lastUse, $0.name) < ($1.lastUse, $1.name) }) where total > limit {
            out.append(file.name)
            total -= file.size
        }
        return out
    }
}
