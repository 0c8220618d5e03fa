import Foundation
import XCTest

/// Compiles a C plugin the way a third party would: cc -std=c99 -shared -fPIC
/// against Sources/PluginAPI/include (or an older header kept in Tests/Fixtures) and nothing else from
/// this repository.
public enum CPluginBuilder {
    public static func build(_ source: String, into directory: TemporaryDirectory, name: String,
                      defines: [String] = [], libraries: [String] = [], header: String = TestPaths.header) throws -> String {
        let output = directory.file("lib\(name).so")
        let result = try runProcess("/usr/bin/env", ["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
                                              "-D_POSIX_C_SOURCE=200809L", "-shared", "-fPIC",
                                              "-fvisibility=hidden", "-I", header]
                                + defines.map { "-D" + $0 } + [source, "-o", output] + libraries.map { "-l" + $0 })
        guard result.status == 0 else {
            throw NSError(domain: "cc", code: Int(result.status), userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
        return output
    }

    public static var probeSource: String { TestPaths.root + "/Tests/Fixtures/probe_plugin.c" }
    public static var exampleSource: String { TestPaths.root + "/examples/c-logger/oton_event_logger.c" }
}
