import Foundation

/// Where things are when the tests run from `swift test` in the repository.
public enum TestPaths {
    /// The repository root (this file is Tests/OtonTestSupport/TestPaths.swift).
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    public static let header = root + "/Sources/PluginAPI/include"

    /// The build products directory holding the test bundle, `oton` and the plugin libraries.
    public static let products: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: executable)
        while url.path != "/" && !url.lastPathComponent.hasSuffix(".xctest") { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().path
    }()

    public static var oton: String { products + "/oton" }

    public static func pluginLibrary(_ product: String) -> String { products + "/lib\(product).so" }
}
