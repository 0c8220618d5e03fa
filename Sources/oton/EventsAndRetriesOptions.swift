import ArgumentParser
import OtonHost

/// The options `oton play` and `oton record` share word for word: where the bus events go, and how many
/// reconnects are tried. One declaration, so their spelling and help cannot drift apart.
struct EventsAndRetriesOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(tr("Write every bus event as one JSON line to FILE, or - for standard output")))
    var events: String?

    @Option(
        name: .long,
        help: ArgumentHelp(tr("Reconnect attempts after a failure before oton gives up (default: unlimited: it waits for the station to come back)")))
    var retries: Int?
}
