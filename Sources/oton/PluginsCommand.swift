import ArgumentParser
import Foundation
import OtonHost

struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: tr("List the configured plugins or inspect a plugin library."),
        subcommands: [List.self, Inspect.self, SetSetting.self, Enable.self, New.self, Run.self, Validate.self, ValidateOne.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: tr("Show the plugins in plugins.json and whether each would load (create is not called)."))

        @OptionGroup var options: GlobalOptions

        func run() throws {
            options.bootstrapLogging()
            let config = try options.loadConfig()
            print(tr("plugins from {file}:", ["file": config.origin]))
            let probe = PluginManager(bus: PluginBus(), requests: NoPlayer())
            let configDirectory = config.file.map { ($0 as NSString).deletingLastPathComponent }
            let crashed = PluginCrashRecord.standard?.crashed() ?? [:]
            for entry in config.plugins {
                if entry.enabled, entry.isolation != .process, crashed[entry.id] != nil {
                    print("  - \(entry.id)  \(tr("off: it crashed oton; oton plugins enable {plugin} turns it back on", ["plugin": entry.id]))")
                    continue
                }
                let status: String
                do throws(PluginLoadError) {
                    let path = try probe.resolve(entry.path, configDirectory: configDirectory)
                    let manifest = try PluginLibrary(path: path).manifest
                    status = entry.enabled ? tr("ok {version}, ABI {abi}", ["version": manifest.version, "abi": manifest.abiVersion]) : tr("disabled")
                    if manifest.id != entry.id { throw .idMismatch(path: path, configured: entry.id, declared: manifest.id) }
                    let problems = PluginSettingsCheck.problems(config: entry.config, settings: manifest.settings)
                    if !problems.isEmpty { throw .settingsRefused(path: path, id: entry.id, problems: problems) }
                } catch {
                    print(
                        "  ✗ \(entry.id)  \(entry.enabled ? tr("enabled") : tr("disabled"))  \(error.reason(in: .current))\n      \(error.path)\n      \(tr("hint: {hint}", ["hint": error.hint(in: .current)]))"
                    )
                    continue
                }
                print("  \(entry.enabled ? "✓" : "-") \(entry.id)  \(status)")
            }
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: tr("Print everything a plugin library declares, without creating it."),
            discussion: HelpText.examples(
                "oton plugins inspect libOtonSleepTimer.so", "oton plugins inspect org.oton.share --json",
                "oton plugins inspect ./build/libmyplugin.so")
        )

        @Argument(
            help: ArgumentHelp(
                tr(
                    "The plugin: a path, a bare file name (found where plugins.json paths are found, e.g. libOtonSleepTimer.so), or a plugin id from plugins.json (org.oton.share)"
                )))
        var path: String

        @Flag(name: .long, help: ArgumentHelp(tr("Print JSON")))
        var json = false

        @Option(name: .long, help: ArgumentHelp(tr("plugins.json whose ids and folders to use (default: the usual lookup)")))
        var config: String?

        func run() throws {
            let manifest: PluginManifest
            do {
                manifest = try PluginLibrary(path: try locate()).manifest
            } catch {
                Terminal.error((error as? PluginLoadError)?.description(in: .current) ?? "\(error)")
                throw ExitStatus.configuration
            }
            print(json ? ManifestPrinter.json(manifest) : ManifestPrinter.text(manifest))
        }

        /// A path as given; else a file of that name here; else a plugin id in the configuration;
        /// else a bare file name searched beside plugins.json and beside the oton executable.
        func locate() throws -> String {
            if path.contains("/") || FileManager.default.fileExists(atPath: path) { return path }
            let configuration = try? ConfigLoader.load(explicit: config)
            let configDirectory = configuration?.file.map { ($0 as NSString).deletingLastPathComponent }
            let probe = PluginManager(bus: PluginBus(), requests: NoPlayer())
            if let entry = configuration?.plugins.first(where: { $0.id == path }) {
                return try probe.resolve(entry.path, configDirectory: configDirectory)
            }
            do {
                return try probe.resolve(path, configDirectory: configDirectory)
            } catch {
                let ids = configuration?.plugins.map(\.id).joined(separator: ", ") ?? "none"
                throw InspectFailure(
                    description: tr(
                        "no plugin file or id \"{plugin}\": {reason} (plugin ids in the configuration: {ids})",
                        ["plugin": path, "reason": error.reason(in: .current), "ids": ids]))
            }
        }
    }
}

/// Requests go nowhere when no player runs (plugins list / inspect).
struct NoPlayer: PlayerRequestSink {
    func submit(_ request: PlayerRequest, from source: String) {}
}

struct InspectFailure: Error, CustomStringConvertible {
    let description: String
}
