import Foundation
import IcecastFixture
import OtonTestSupport

extension PrivateSessionBus {
    /// Starts `oton ARGUMENTS` on this session bus (MPRIS, notifications), its cache and data folders
    /// in `directory`, its stderr in `directory/oton.log` (returned). The caller stops it.
    func startOton(_ arguments: [String], in directory: TemporaryDirectory) throws -> (process: ManagedProcess, log: String) {
        var environment = self.environment
        environment["XDG_CACHE_HOME"] = directory.file("cache")
        environment["XDG_DATA_HOME"] = directory.file("data")
        let log = directory.file("oton.log")
        FileManager.default.createFile(atPath: log, contents: nil)
        let oton = ManagedProcess(
            name: "oton", executable: TestPaths.oton, arguments: arguments,
            environment: environment, stderr: try FileHandle(forWritingTo: URL(fileURLWithPath: log)))
        try oton.start()
        return (oton, log)
    }
}
