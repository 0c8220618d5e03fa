#if canImport(Glibc)
    import Glibc
#endif

/// The process's own figures under the names every Prometheus client library uses, read from
/// /proc/self (Linux). Parsing is pure (`parse`), reading is `read()`.
public struct ProcessFigures: Sendable, Equatable {
    public var cpuSeconds: Double
    public var residentBytes: UInt64
    public var virtualBytes: UInt64
    public var startTimeSeconds: Double
    public var openFileDescriptors: Int
    public var maxFileDescriptors: Int?

    public init(
        cpuSeconds: Double, residentBytes: UInt64, virtualBytes: UInt64, startTimeSeconds: Double,
        openFileDescriptors: Int, maxFileDescriptors: Int?
    ) {
        self.cpuSeconds = cpuSeconds
        self.residentBytes = residentBytes
        self.virtualBytes = virtualBytes
        self.startTimeSeconds = startTimeSeconds
        self.openFileDescriptors = openFileDescriptors
        self.maxFileDescriptors = maxFileDescriptors
    }

    /// From the texts of /proc/self/stat, /proc/stat and /proc/self/limits, the number of entries
    /// of /proc/self/fd, the clock ticks per second and the page size. Nil when `stat` is malformed.
    public static func parse(
        stat: String, systemStat: String, limits: String, openFileDescriptors: Int,
        ticksPerSecond: Int, pageSize: Int
    ) -> ProcessFigures? {
        // The command name (field 2) is in parentheses and may hold spaces or ')': fields 3… follow the last ')'.
        guard let close = stat.lastIndex(of: ")"), ticksPerSecond > 0 else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (state): utime 14, stime 15, starttime 22, vsize 23, rss 24.
        guard fields.count > 21, let user = UInt64(fields[11]), let system = UInt64(fields[12]),
            let start = UInt64(fields[19]), let virtual = UInt64(fields[20]), let rss = Int64(fields[21])
        else { return nil }
        let boot = systemStat.split(separator: "\n").first { $0.hasPrefix("btime ") }.flatMap { Double($0.dropFirst(6).trimmingSpaces()) } ?? 0
        let ticks = Double(ticksPerSecond)
        return ProcessFigures(
            cpuSeconds: Double(user + system) / ticks,
            residentBytes: UInt64(max(rss, 0)) * UInt64(pageSize),
            virtualBytes: virtual,
            startTimeSeconds: boot + Double(start) / ticks,
            openFileDescriptors: openFileDescriptors,
            maxFileDescriptors: maxOpenFiles(limits))
    }

    /// The soft limit of "Max open files" in /proc/self/limits; nil when unlimited or absent.
    static func maxOpenFiles(_ limits: String) -> Int? {
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
        return line.dropFirst("Max open files".count).split(separator: " ").first.flatMap { Int($0) }
    }

    /// The figures of this process now; nil when /proc is not there.
    public static func read() -> ProcessFigures? {
        guard let stat = readText("/proc/self/stat") else { return nil }
        return parse(
            stat: stat, systemStat: readText("/proc/stat") ?? "", limits: readText("/proc/self/limits") ?? "",
            openFileDescriptors: countEntries("/proc/self/fd"),
            ticksPerSecond: sysconf(Int32(_SC_CLK_TCK)), pageSize: sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Adds the process families to `out`.
    public func write(into out: inout Exposition) {
        out.family("process_cpu_seconds_total", .counter, help: "Total user and system CPU time spent in seconds.", [.init([], cpuSeconds)])
        out.family("process_open_fds", .gauge, help: "Number of open file descriptors.", [.init([], Double(openFileDescriptors))])
        if let maxFileDescriptors {
            out.family("process_max_fds", .gauge, help: "Maximum number of open file descriptors.", [.init([], Double(maxFileDescriptors))])
        }
        out.family("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.", [.init([], Double(residentBytes))])
        out.family("process_virtual_memory_bytes", .gauge, help: "Virtual memory size in bytes.", [.init([], Double(virtualBytes))])
        out.family("process_start_time_seconds", .gauge, help: "Start time of the process since unix epoch in seconds.", [.init([], startTimeSeconds)])
    }

    /// A small /proc file's text (these files report size 0, so read until the end).
    static func readText(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Entries of a directory, without "." and ".." and the descriptor used to list it.
    static func countEntries(_ path: String) -> Int {
        guard let directory = opendir(path) else { return 0 }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name != "." && name != ".." { count += 1 }
        }
        closedir(directory)
        return max(count - 1, 0)
    }
}

extension Substring {
    func trimmingSpaces() -> Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
