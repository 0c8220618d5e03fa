import Foundation
import OtonProcessKeeper

/// The process oton starts for an isolated plugin keeps the plugin's process tree; the plugin runs
/// in its child, the worker (`oton plugin-host … --worker`). See `oton_process_keeper.h`: a plugin
/// that forks (even with setsid) cannot hide its crash behind a descendant that holds the socket,
/// nor outlive a restart or oton.
public enum PluginHostKeeper {
    public static let workerFlag = "--worker"

    /// Runs the worker with this process's arguments and `--worker`; returns only when it could not start.
    public static func run(handing fd: Int32) -> Int32 {
        let arguments = CommandLine.arguments + [workerFlag]
        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let error = oton_process_keeper_run(&cArguments, fd)
        FileHandle.standardError.write(Data("oton plugin-host: could not start the worker: \(String(cString: strerror(error)))\n".utf8))
        return 70
    }
}
