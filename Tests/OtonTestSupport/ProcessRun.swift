import Foundation

/// Runs a program to completion and returns its exit code and output.
public struct ProcessResult {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

@discardableResult
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
    currentDirectory: String? = nil
) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
    let group = DispatchGroup()
    nonisolated(unsafe) var stdoutData = Data()
    nonisolated(unsafe) var stderrData = Data()
    DispatchQueue.global().async(group: group) { stdoutData = out.fileHandleForReading.readDataToEndOfFile() }
    DispatchQueue.global().async(group: group) { stderrData = err.fileHandleForReading.readDataToEndOfFile() }
    group.wait()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus,
        stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData, as: UTF8.self))
}
