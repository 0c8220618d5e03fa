import Foundation

/// Copies text with the clipboard tool the session has: wl-copy on Wayland,
/// xclip or xsel on X11. Returns the tool's name, or nil when none worked.
enum Clipboard {
    static func copy(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        var candidates: [(String, [String])] = []
        if environment["WAYLAND_DISPLAY"] != nil { candidates.append(("wl-copy", [])) }
        if environment["DISPLAY"] != nil {
            candidates.append(("xclip", ["-selection", "clipboard"]))
            candidates.append(("xsel", ["--clipboard", "--input"]))
        }
        for (tool, arguments) in candidates {
            guard let path = find(tool, in: environment["PATH"] ?? "/usr/bin:/bin") else { continue }
            if run(path, arguments, input: text) { return tool }
        }
        return nil
    }

    private static func find(_ tool: String, in path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs the tool with the text on standard input; gives up after 2 s.
    private static func run(_ path: String, _ arguments: [String], input: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardInput = pipe
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        pipe.fileHandleForWriting.write(Data(input.utf8))
        try? pipe.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            process.terminate()
            return false
        }
        return process.terminationStatus == 0
    }
}
