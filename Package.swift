// swift-tools-version:6.0
import PackageDescription

/// Plugins are separate shared libraries that talk to the host through the C
/// header in Sources/PluginAPI only. Each links the Swift runtime dynamically
/// and never links OtonHost; the version script keeps every symbol but the
/// entry point hidden, so plugins cannot clash with each other or the host.
let pluginLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["-Xlinker", "--version-script=Sources/Plugins/exports.map"])
]

/// A plugin's C glue (Sources/Plugins/NAME/Plugin), built into the dynamic library.
func plugin(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
    .target(
        name: name,
        dependencies: ["PluginAPI", "OtonPluginKit"] + dependencies,
        path: "Sources/Plugins/\(name)/Plugin",
        linkerSettings: pluginLinkerSettings
    )
}

/// A plugin's logic (Sources/Plugins/NAME/Logic): plain Swift, unit-tested on its own.
func pluginLogic(_ name: String, dependencies: [Target.Dependency] = []) -> Target {
    .target(name: "\(name)Logic", dependencies: ["OtonJSON", "OtonPluginKit"] + dependencies, path: "Sources/Plugins/\(name)/Logic")
}

let package = Package(
    name: "Oton",
    products: [
        .executable(name: "oton", targets: ["oton"]),
        .executable(name: "oton-window", targets: ["oton-window"]),
        .library(name: "OtonSleepTimer", type: .dynamic, targets: ["SleepTimer"]),
        .library(name: "OtonShare", type: .dynamic, targets: ["Share"]),
        .library(name: "OtonFileSink", type: .dynamic, targets: ["FileSink"]),
        .library(name: "OtonNowPlaying", type: .dynamic, targets: ["NowPlaying"]),
        .library(name: "OtonArtwork", type: .dynamic, targets: ["Artwork"]),
        .library(name: "OtonHistory", type: .dynamic, targets: ["History"]),
        .library(name: "OtonWebRemote", type: .dynamic, targets: ["WebRemote"]),
        .library(name: "OtonMetrics", type: .dynamic, targets: ["Metrics"]),
        .library(name: "OtonSnapcast", type: .dynamic, targets: ["Snapcast"]),
        .library(name: "OtonUPnP", type: .dynamic, targets: ["UPnP"]),
        .library(name: "OtonUPnPCore", type: .dynamic, targets: ["UPnPCore"]),
        .library(name: "OtonMQTT", type: .dynamic, targets: ["MQTT"]),
        .library(name: "OtonHook", type: .dynamic, targets: ["Hook"]),
        .library(name: "OtonTray", type: .dynamic, targets: ["Tray"]),
        .library(name: "OtonRecognition", type: .dynamic, targets: ["Recognition"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Only the History and Recognition plugins link this (statically, into their libraries); the host never does.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
    ],
    targets: [
        // The contract: one C header. A third party compiles against include/ alone.
        .target(name: "PluginAPI", path: "Sources/PluginAPI"),

        // GStreamer and GLib through pkg-config, with inline shims for their macros.
        .systemLibrary(
            name: "CGStreamer",
            path: "Sources/CGStreamer",
            pkgConfig: "gstreamer-app-1.0",
            providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]
        ),

        // GIO/GDBus for the plugins that speak D-Bus, with inline shims for macros and varargs.
        .systemLibrary(
            name: "CGio",
            path: "Sources/CGio",
            pkgConfig: "gio-2.0",
            providers: [.apt(["libglib2.0-dev"])]
        ),

        // libcurl (host and artwork plugin) and gdk-pixbuf (artwork plugin), with typed wrappers for varargs.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // A capped libcurl GET for untrusted servers. Compiled into the host and, as a hidden copy
        // (the plugin version script exports one symbol), into the artwork plugin; it keeps no state
        // of its own beyond libcurl's refcounted global init.
        .target(name: "OtonHTTP", dependencies: ["CCurl"]),
        // libmicrohttpd for the metrics plugin's listener and the web remote's server (bounded connections).
        .systemLibrary(
            name: "CMicroHTTPD",
            path: "Sources/CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // libmpg123 for the file sink's air watch: a sampled second of an MP3 stream decoded to measure its level.
        .systemLibrary(
            name: "CMpg123",
            path: "Sources/CMpg123",
            pkgConfig: "libmpg123",
            providers: [.apt(["libmpg123-dev"])]
        ),
        // libqrencode for the web remote's QR code of its URL.
        .systemLibrary(
            name: "CQREncode",
            path: "Sources/CQREncode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        // GUPnP 1.6 and GUPnP-AV for the UPnP casting plugin (SSDP, SOAP, DIDL-Lite), with inline shims.
        // It links libsoup 3, which cannot share a process with the player's libsoup 2.4: the plugin
        // runs isolated ("isolation": "process"), see docs/casting.md.
        .systemLibrary(
            name: "CGUPnP",
            path: "Sources/CGUPnP",
            pkgConfig: "gupnp-1.6",
            providers: [.apt(["libgupnp-1.6-dev"])]
        ),
        .systemLibrary(name: "CGUPnPAV", path: "Sources/CGUPnPAV", pkgConfig: "gupnp-av-1.0", providers: [.apt(["libgupnp-av-1.0-dev"])]),
        // GTK 4.8 and libadwaita 1.2 (Debian 12) for the desktop window, with inline shims. Only
        // oton-window links them: no other command loads GTK.
        .systemLibrary(
            name: "CGtk",
            path: "Sources/CGtk",
            pkgConfig: "libadwaita-1",
            providers: [.apt(["libgtk-4-dev", "libadwaita-1-dev"])]
        ),
        .systemLibrary(
            name: "CGdkPixbuf",
            path: "Sources/CGdkPixbuf",
            pkgConfig: "gdk-pixbuf-2.0",
            providers: [.apt(["libgdk-pixbuf-2.0-dev"])]
        ),

        // The one JSON reader and writer (numbers kept as written, errors at line:column) and the
        // typed reader of a plugin's config. Shared by the host and the plugins (compiled into each).
        .target(name: "OtonJSON"),

        // How typed text and station titles are compared (case, accents, width folded in every script):
        // the history search and the wishlist. Shared by the host and the History plugin (compiled into each).
        .target(name: "OtonTextFolding"),

        // How encoded audio is framed: Ogg pages and the codec a logical stream starts with, MPEG audio
        // and ADTS frame headers. Shared by the light engine, timeshift and the file sink (compiled into each).
        .target(name: "OtonStreamFraming"),

        // Names the plugin a fatal signal came from (a per-thread record and a write(2)-only handler).
        .target(name: "OtonCrashGuard", path: "Sources/OtonCrashGuard"),

        // Keeps an isolated plugin's process tree: a subreaper that ends every process the plugin forked.
        .target(name: "OtonProcessKeeper", path: "Sources/OtonProcessKeeper"),

        // The C heap in use (glibc mallinfo2), for the validator's leak check.
        .target(name: "OtonHeapGauge", path: "Sources/OtonHeapGauge"),

        // otonhttpsrc: souphttpsrc taking the User-Agent and certificate authorities of the pipeline it
        // serves, so the HLS/DASH demuxers' own playlist downloader goes out as oton too.
        .target(name: "OtonHTTPSource", dependencies: ["CGStreamer", "CGio"], path: "Sources/OtonHTTPSource"),

        // The loudness leveller of what plays (docs/levelling.md): EBU R128 measurement with libebur128
        // (apt: libebur128-dev to build, libebur128-1 to run), a smoothed gain and a look-ahead limiter,
        // run in place on each buffer by a pad probe. C, so the streaming thread's work allocates nothing.
        .target(
            name: "OtonLeveller",
            dependencies: ["CGStreamer"],
            path: "Sources/OtonLeveller",
            cSettings: [.headerSearchPath("../CGStreamer")],  // shim.h: the one reading of a caps event
            linkerSettings: [.linkedLibrary("ebur128"), .linkedLibrary("m")]
        ),

        // The effect chain's own processors (docs/effects.md): LV2 plugins hosted with lilv (apt:
        // liblilv-dev to build, liblilv-0-0 to run) and plugins' in-place filters, each run by a pad
        // probe like the leveller, allocation-free per buffer.
        .systemLibrary(name: "CLilv", path: "Sources/CLilv", pkgConfig: "lilv-0", providers: [.apt(["liblilv-dev"])]),
        .target(
            name: "OtonEffects",
            dependencies: ["CGStreamer", "CLilv"],
            path: "Sources/OtonEffects",
            cSettings: [.headerSearchPath("../CGStreamer")],  // shim.h: the one reading of a caps event
            linkerSettings: [.linkedLibrary("m")]
        ),

        // The host in layers, bottom up; each target may import only those below it, so a
        // dependency that points the wrong way is a build error (docs/architecture.md).
        // Support: paths, localisation, clock, volume, text, atomic files.
        .target(name: "OtonSupport", dependencies: ["PluginAPI", "OtonJSON"]),
        // Events: the bus vocabulary, mailboxes and the plugin bus, typed errors, the requests
        // plugins and the control socket make.
        .target(
            name: "OtonEvents",
            dependencies: ["OtonSupport", "PluginAPI", .product(name: "Logging", package: "swift-log")]
        ),
        // Media: the two engines (GStreamer pipeline, light libcurl engine) and the tag/title path.
        .target(
            name: "OtonMedia",
            dependencies: [
                "OtonSupport", "OtonEvents", "PluginAPI", "CGStreamer", "CCurl", "OtonHTTP", "OtonHTTPSource", "OtonLeveller", "OtonEffects",
                "OtonStreamFraming",
            ]
        ),
        // Stations: plugins.json, the catalogue and its editor, the resolver, playlists, the directory.
        .target(
            name: "OtonStations",
            dependencies: ["OtonSupport", "OtonEvents", "OtonMedia", "OtonHTTP", .product(name: "Logging", package: "swift-log")]
        ),
        // Plugins: loading, the host table, commands, isolation in a child process, validation.
        .target(
            name: "OtonPlugins",
            dependencies: [
                "OtonSupport", "OtonEvents", "OtonMedia", "OtonStations", "PluginAPI", "OtonJSON",
                "OtonCrashGuard", "OtonProcessKeeper", "OtonHeapGauge", "OtonEffects", .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // Playback: the Player, its state machine, reconnects, the fader. Knows no plugin.
        .target(
            name: "OtonPlayback",
            dependencies: [
                "OtonSupport", "OtonEvents", "OtonMedia", "OtonStations", "PluginAPI", "OtonHTTP",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The control socket's transport: a Unix socket server and client speaking JSON lines, bounded
        // per client. What answers a request is the sessions' business (ControlHandler).
        .target(
            name: "OtonControl",
            dependencies: ["OtonSupport", "OtonEvents", .product(name: "Logging", package: "swift-log")]
        ),
        // Sessions (the top of the host): play and record sessions, the control socket and its
        // commands, alarm, wishlist, schedules. Re-exports the layers below for the CLI and tests.
        .target(
            name: "OtonHost",
            dependencies: [
                "OtonSupport", "OtonEvents", "OtonMedia", "OtonStations", "OtonPlugins", "OtonPlayback", "OtonControl",
                "PluginAPI",
                "OtonJSON",
                "OtonTextFolding",
                .product(name: "Logging", package: "swift-log"),
            ],
            // The message catalogues (locale/*.po), copied beside the executable; see docs/translating.md.
            resources: [.copy("Resources/locale"), .copy("Resources/now-playing")]
        ),
        .executableTarget(
            name: "oton",
            dependencies: [
                "OtonHost",
                // The file sink's own wording of durations and sizes, for `oton record`'s lines.
                "FileSinkLogic",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The desktop window (`oton window`): a GTK client of the control socket, in a process of its own
        // (oton-window), so it needs only the control client and support below it, never the player.
        .target(name: "OtonWindow", dependencies: ["OtonSupport", "OtonControl", "OtonJSON", "PluginAPI", "CGtk"]),
        .executableTarget(name: "oton-window", dependencies: ["OtonWindow"]),

        // Benchmarks (Benchmarks/run): bus throughput through real C plugins.
        .executableTarget(name: "oton-bench-bus", dependencies: ["OtonHost", "PluginAPI"], path: "Benchmarks/BusThroughput"),
        .executableTarget(name: "oton-bench-now-playing", dependencies: ["OtonHost", "OtonHTTP"], path: "Benchmarks/NowPlayingPolls"),

        // Optional helper for Swift plugin authors; statically compiled into each Swift plugin.
        .target(name: "OtonPluginKit", dependencies: ["PluginAPI", "OtonJSON"]),

        pluginLogic("SleepTimer"),
        plugin("SleepTimer", dependencies: ["SleepTimerLogic"]),
        pluginLogic("Share"),
        plugin("Share", dependencies: ["ShareLogic"]),
        pluginLogic("FileSink", dependencies: ["OtonStreamFraming"]),
        plugin("FileSink", dependencies: ["FileSinkLogic", "OtonStreamFraming", "OtonHTTP", "CMpg123"]),
        pluginLogic("NowPlaying"),
        // One GLib thread of a plugin's own (NowPlaying's D-Bus, UPnP's GUPnP), compiled into each that uses it.
        .target(name: "OtonGLibThread", dependencies: ["CGio"]),
        plugin("NowPlaying", dependencies: ["NowPlayingLogic", "CGio", "OtonGLibThread"]),
        // The tray icon (StatusNotifierItem + dbusmenu) and "keeps playing" when the window closes: GDBus like NowPlaying.
        pluginLogic("Tray"),
        plugin("Tray", dependencies: ["TrayLogic", "CGio", "OtonGLibThread"]),
        pluginLogic("Artwork"),
        plugin("Artwork", dependencies: ["ArtworkLogic", "OtonHTTP", "CGdkPixbuf"]),
        pluginLogic("History", dependencies: ["OtonTextFolding"]),
        plugin(
            "History",
            dependencies: [
                "HistoryLogic",
                .product(name: "GRDB", package: "GRDB.swift"),
                "CGio",
                "OtonHTTP",
            ]),
        pluginLogic("WebRemote", dependencies: ["CQREncode"]),
        // The web remote's server is libmicrohttpd (thread per connection, for its event streams).
        plugin("WebRemote", dependencies: ["WebRemoteLogic", "CMicroHTTPD"]),
        pluginLogic("Metrics"),
        // The metrics listener: libmicrohttpd and the process-wide exporter, apart from the C glue so tests can run it.
        .target(name: "MetricsHTTP", dependencies: ["MetricsLogic", "OtonPluginKit", "CMicroHTTPD"], path: "Sources/Plugins/Metrics/HTTP"),
        plugin("Metrics", dependencies: ["MetricsLogic", "MetricsHTTP"]),
        // Sends the decoded sound to a snapserver TCP source and the track to its control script
        // (Sources/Plugins/Snapcast/oton-snapcast-control); plain POSIX sockets on threads of its own.
        pluginLogic("Snapcast"),
        plugin("Snapcast", dependencies: ["SnapcastLogic"]),
        pluginLogic("UPnP"),
        // The UPnP plugin is two libraries: the C forwarder oton loads (libOtonUPnP.so, no GUPnP) and the
        // Swift core with GUPnP (libOtonUPnPCore.so), which the forwarder loads only in a process of the
        // plugin's own: GUPnP's libsoup 3 aborts a process that has the player's libsoup 2.4.
        .target(
            name: "UPnPCore",
            dependencies: ["PluginAPI", "OtonPluginKit", "UPnPLogic", "CGUPnP", "CGUPnPAV", "OtonGLibThread"],
            path: "Sources/Plugins/UPnP/Core",
            linkerSettings: [.unsafeFlags(["-Xlinker", "--version-script=Sources/Plugins/UPnP/core-exports.map"])]
        ),
        .target(
            name: "UPnP", dependencies: ["PluginAPI"], path: "Sources/Plugins/UPnP/Plugin",
            linkerSettings: pluginLinkerSettings + [.linkedLibrary("dl"), .linkedLibrary("pthread")]),

        // Song recognition: Chromaprint (apt: libchromaprint-dev to build, libchromaprint1 to run) fingerprints
        // what is heard with a title into an SQLite index (GRDB, as History) and names titleless stations' songs.
        .systemLibrary(name: "CChromaprint", path: "Sources/CChromaprint", pkgConfig: "libchromaprint", providers: [.apt(["libchromaprint-dev"])]),
        pluginLogic("Recognition"),
        // The fingerprinter and the index, apart from the C glue so tests can run them.
        .target(
            name: "RecognitionStore", dependencies: ["RecognitionLogic", "CChromaprint", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/Plugins/Recognition/Store"),
        plugin("Recognition", dependencies: ["RecognitionLogic", "RecognitionStore"]),

        // Now playing to an MQTT broker (Home Assistant's discovery included): a C plugin that speaks
        // MQTT 3.1.1 itself (it bounds what the broker sends), built against the header alone, as a
        // third party's would be.
        .target(
            name: "MQTT", dependencies: ["PluginAPI"], path: "Sources/Plugins/MQTT/Plugin",
            linkerSettings: pluginLinkerSettings + [.linkedLibrary("pthread")]),
        // Runs a command of the user's on each track change (bounded, with a timeout): C, POSIX only.
        .target(
            name: "Hook", dependencies: ["PluginAPI"], path: "Sources/Plugins/Hook/Plugin",
            linkerSettings: pluginLinkerSettings + [.linkedLibrary("pthread")]),

        // Test support: temporary directories, process running, C plugin building, event collecting.
        .target(name: "OtonTestSupport", dependencies: ["OtonHost"], path: "Tests/OtonTestSupport"),
        // A real Icecast2 server on loopback fed by gst-launch-1.0, and a local HTTP server.
        .target(name: "IcecastFixture", path: "Tests/IcecastFixture"),

        // Tests by kind: host units (pure, in-process), plugin Logic units, and tests that run the
        // oton binary or load compiled C plugins; OtonIntegrationTests meets real servers.
        // (NumericInputTests drives numbers at their limits through the host and the plugins' parsers alike.)
        .testTarget(
            name: "OtonHostTests",
            dependencies: [
                "OtonHost", "PluginAPI", "OtonTestSupport", "FileSinkLogic", "OtonStreamFraming", "HistoryLogic", "SleepTimerLogic", "OtonLeveller",
                "OtonEffects",
            ]),
        .testTarget(
            name: "PluginLogicTests",
            dependencies: [
                "SleepTimerLogic", "ShareLogic", "FileSinkLogic", "OtonStreamFraming", "NowPlayingLogic", "ArtworkLogic", "HistoryLogic", "WebRemoteLogic",
                "MetricsLogic", "MetricsHTTP", "SnapcastLogic", "UPnPLogic", "TrayLogic", "RecognitionLogic", "RecognitionStore", "OtonTestSupport",
            ]
        ),
        .testTarget(name: "OtonProcessTests", dependencies: ["OtonHost", "PluginAPI", "OtonTestSupport"]),
        .testTarget(name: "OtonJSONTests", dependencies: ["OtonJSON"]),
        .testTarget(name: "OtonWindowTests", dependencies: ["OtonWindow", "OtonJSON", "OtonSupport", "OtonStations", "OtonHTTP"]),
        .testTarget(name: "IcecastFixtureTests", dependencies: ["IcecastFixture"]),
        .testTarget(
            name: "OtonIntegrationTests",
            dependencies: [
                "OtonHost", "PluginAPI", "OtonTestSupport", "IcecastFixture", "HistoryLogic",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
