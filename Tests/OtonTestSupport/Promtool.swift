import Foundation

/// Prometheus's own checker of the text exposition format (`promtool check metrics`, Debian
/// package `prometheus`): the format's parser and its lint rules (names, HELP, counter suffixes).
public enum Promtool {
    public static var path: String? {
        ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// promtool's verdict on `text` (read from its standard input); nil when promtool is absent.
    public static func checkMetrics(_ text: String, in directory: TemporaryDirectory) throws -> ProcessResult? {
        guard let path else { return nil }
        let file = try directory.write("scraped-\(UUID().uuidString).prom", text)
        return try runProcess("/bin/sh", ["-c", "exec \"$0\" check metrics < \"$1\"", path, file])
    }
}
