import Foundation
import OtonHost

/// What `alarm add` and `schedule add` settle before they write a unit: the oton the unit runs, the
/// plugins.json it runs with, and that the station resolves with that plugins.json now — an alarm
/// for a station that does not resolve would ring silent at 7:00.
enum UnitCommandChecks {
    /// The oton a unit runs: this one, unless this one is a build inside a package's `.build`
    /// folder and an installed oton is on PATH (a build folder comes and goes with `swift build`).
    static var otonPath: String {
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        guard isBuild(running) else { return running }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = String(folder) + "/oton"
            guard FileManager.default.isExecutableFile(atPath: candidate) else { continue }
            let resolved = URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
            if !isBuild(resolved) { return resolved }
        }
        return running
    }

    /// Says so when the unit will run a build (no installed oton was found).
    static func noteWhenABuildRuns(_ oton: String) {
        guard isBuild(oton) else { return }
        Terminal.note(
            tr(
                "the unit runs oton from a build folder ({path}): it stops working when that build goes; scripts/install puts oton where units keep working",
                ["path": oton]))
    }

    private static func isBuild(_ path: String) -> Bool { path.contains("/.build/") }

    /// The plugins.json a unit names: `--config` (made absolute), or $OTON_CONFIG, which a unit's
    /// environment lacks; nil when oton finds its file by itself (XDG, ./plugins.json, the built-in default).
    static func configPath(_ explicit: String?) -> String? {
        let named = explicit ?? ProcessInfo.processInfo.environment["OTON_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        return named.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }

    /// Exits with code 2, the reason and the known names, when `station` does not resolve with the
    /// plugins.json at `config` (or the usual places).
    static func checkStation(_ station: String, config: String?) throws {
        let loaded: OtonConfig
        do {
            loaded = try ConfigLoader.load(explicit: config)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.configuration
        }
        guard !station.hasPrefix("-") else { return }  // refused with its own words where the unit is made
        do {
            _ = try StationResolver.resolve(station, in: loaded)
        } catch {
            Terminal.error(error.description)
            throw ExitStatus.configuration
        }
    }
}
