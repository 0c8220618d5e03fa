import ArgumentParser
import Foundation
import OtonHost

struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the configured plugins or inspect a plugin library.",
        subcommands: [List.self, Inspect.self],
        defaultSubcommand: List.self
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the plugins in plugins.json and whether each would load (create is not called).")

        @OptionGroup var options: GlobalOptions

        func run() throws {
            options.bootstrapLogging()
            let config = try options.loadConfig()
            print("plugins from \(config.file ?? "?"):")
            let probe = PluginManager(bus: PluginBus(), requests: NoPlayer())
            let configDirectory = config.file.map { ($0 as NSString).deletingLastPathComponent }
            for entry in config.plugins {
                let status: String
                do throws(PluginLoadError) {
                    let path = try probe.resolve(entry.path, configDirectory: configDirectory)
                    let manifest = try PluginLibrary(path: path).manifest
                    status = entry.enabled ? "ok \(manifest.version), ABI \(manifest.abiVersion)" : "disabled"
                    if manifest.id != entry.id { throw .idMismatch(path: path, configured: entry.id, declared: manifest.id) }
                } catch {
                    print("  ✗ \(entry.id)  \(entry.enabled ? "enabled" : "disabled")  \(error.reason)\n      \(error.path)\n      hint: \(error.hint)")
                    continue
                }
                print("  \(entry.enabled ? "✓" : "-") \(entry.id)  \(status)")
            }
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print everything a plugin library declares, without creating it.",
            discussion: """
            PLUGIN is a path (./libx.so), a bare file name (libOtonSleepTimer.so, searched where plugins.json \
            paths are searched: beside plugins.json, then beside oton), or a plugin id from plugins.json \
            (org.oton.sleep-timer).

            Examples:
              oton plugins inspect libOtonSleepTimer.so
              oton plugins inspect org.oton.share --json
              oton plugins inspect ./build/libmyplugin.so
            """
        )

        @OptionGroup var options: GlobalOptions

        @Argument(help: ArgumentHelp("A path, a bare file name or a plugin id", valueName: "plugin"))
        var plugin: String

        @Flag(name: .long, help: "Print JSON")
        var json = false

        func run() throws {
            let manifest: PluginManifest
            do {
                manifest = try PluginLibrary(path: try libraryPath()).manifest
            } catch {
                Terminal.error(error.description)
                throw ExitStatus.configuration
            }
            print(json ? ManifestPrinter.json(manifest) : ManifestPrinter.text(manifest))
        }

        /// The library the argument names: a path as it is; a plugin id through its plugins.json
        /// entry; a bare file name where plugins.json paths are searched.
        private func libraryPath() throws(PluginLoadError) -> String {
            let config = try? ConfigLoader.load(explicit: options.config)
            let configDirectory = config?.file.map { ($0 as NSString).deletingLastPathComponent }
            let probe = PluginManager(bus: PluginBus(), requests: NoPlayer())
            if !plugin.contains("/"), let entry = config?.plugins.first(where: { $0.id == plugin }) {
                return try probe.resolve(entry.path, configDirectory: configDirectory)
            }
            return try probe.resolve(plugin, configDirectory: configDirectory)
        }
    }
}

/// Requests go nowhere when no player runs (plugins list / inspect).
struct NoPlayer: PlayerRequestSink {
    func submit(_ request: PlayerRequest, from source: String) {}
}
