import OtonPluginKit
import PluginAPI
import TrayLogic

/// The tray plugin's descriptor: a StatusNotifierItem with its menu (play/pause, the favourites,
/// open the window, quit), and what a player says when its window closes and it plays on.
/// Concurrency: immutable after its one initialisation (a global's lazy init is thread-safe); the host only reads it.
nonisolated(unsafe) let trayDescriptor = PluginDescriptorBuilder(
    id: "org.oton.tray",
    name: "Tray",
    version: "0.1.0",
    description: "A tray icon (StatusNotifierItem) with play/pause, the favourites and quit; keeps playing when the window closes, if asked",
    consumes: ["track", "state"],
    commands: [(name: "background", usage: BackgroundCommand.usage, help: "whether a closing window leaves this player playing")],
    settings: [
        SettingDeclaration("keep_playing", .boolean, help: "closing the window leaves the player playing (a notification says so)", defaultJSON: "false"),
        SettingDeclaration("tray", .boolean, help: "show a tray icon where the desktop has a StatusNotifierWatcher", defaultJSON: "true"),
        SettingDeclaration(
            "notification_timeout_ms", .integer, help: "how long the \"keeps playing\" notification stays (-1: the server decides)",
            defaultJSON: "-1", range: -1...3_600_000),
    ]
).build { host, config in
    TrayInstance(host: host, config: try TrayConfig.parse(config))
}

extension TrayInstance: SwiftPluginInstance {
    func receive(_ event: EventView.Snapshot) { handle(event) }
}

@_cdecl("oton_plugin_entry")
public func otonPluginEntry() -> UnsafePointer<oton_plugin_descriptor> {
    trayDescriptor
}
