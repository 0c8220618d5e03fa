import Foundation
import XCTest

/// Compiles a C plugin the way a third party would: cc -std=c99 -shared -fPIC
/// against Sources/PluginAPI/include (or an older header kept in Tests/Fixtures) and nothing else from
/// this repository.
public enum CPluginBuilder {
    public static func build(
        _ source: String, into directory: TemporaryDirectory, name: String,
        defines: [String] = [], libraries: [String] = [], header: String = TestPaths.header
    ) throws -> String {
        try compile(source, into: directory, output: "lib\(name).so", header: header, defines: defines, libraries: libraries)
    }

    /// The one C compile of the tests: `source` into `directory/output`, a shared library (or, with
    /// `shared` false, a program), with the flags a careful third party uses and nothing of this
    /// repository but the header folder `header`.
    public static func compile(
        _ source: String, into directory: TemporaryDirectory, output: String, header: String = TestPaths.header,
        shared: Bool = true, defines: [String] = [], libraries: [String] = []
    ) throws -> String {
        let path = directory.file(output)
        let result = try runProcess(
            "/usr/bin/env",
            [
                "cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                "-D_POSIX_C_SOURCE=200809L", "-fvisibility=hidden", "-I", header,
            ]
                + (shared ? ["-shared", "-fPIC"] : [])
                + defines.map { "-D" + $0 } + [source, "-o", path] + libraries.map { "-l" + $0 })
        guard result.status == 0 else {
            throw NSError(domain: "cc", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
        return path
    }

    public static var probeSource: String { TestPaths.root + "/Tests/Fixtures/probe_plugin.c" }
    public static var exampleSource: String { TestPaths.root + "/examples/c-logger/oton_event_logger.c" }
}
