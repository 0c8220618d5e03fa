import Foundation
import XCTest

/// A private (0700) directory removed when the test ends.
public final class TemporaryDirectory {
    public let path: String

    public init(_ testCase: XCTestCase) throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.path
        var template = Array((base + "/oton-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        path = String(cString: made)
        let path = self.path
        testCase.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    }

    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }

    public func read(_ name: String) -> String {
        (try? String(contentsOfFile: file(name), encoding: .utf8)) ?? ""
    }

    public func lines(_ name: String) -> [String] {
        read(name).split(separator: "\n").map(String.init)
    }
}
