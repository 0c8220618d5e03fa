import Foundation
import Logging
import OtonEvents
import OtonPlayback
import OtonStations

/// `oton play` with `"watch_wishes": true`: every favourite but the one playing is watched for wishes
/// in the same process, each a session of its own on the light engine with no plugins (titles only,
/// nothing decoded or written). A wish heard on one of them is published as `org.oton.wish.heard` on
/// the playing session's bus too, where the status line, `oton ctl status`, `switch-to-wish` and the
/// plugins see it.
public final class FavouritesWishWatch: Sendable {
    private let sessions: [(session: RecordingSession, watch: WishWatcher.Watch)]

    public init(stations: [Station], wishes: [Wish], shutdownTimeout: Double, announceOn bus: PluginBus) {
        var options = Player.Options(headless: true)
        options.decodes = false
        options.engine = .light
        let watcher = WishWatcher(wishes: wishes) { heard in
            if let event = heard.event(on: bus) { bus.publish(event) }
        }
        var labels = StationLabels()
        sessions = stations.map { station in
            let label = labels.label(for: station.name)
            let logger = Logger(label: "oton.wishlist[\(label)]") { label in FirstWarningLogHandler(label: label) }
            let session = RecordingSession(
                station: station, label: label, plugins: [], configDirectory: nil, options: options,
                shutdownTimeout: shutdownTimeout, events: nil, playerLogger: logger
            ) { _ in }
            return (session, watcher.watch(bus: session.bus, station: station.name))
        }
    }

    public var count: Int { sessions.count }

    public func start() {
        for (session, _) in sessions { session.start() }
        Logger(label: "oton.wishlist").info("watching \(sessions.count) favourite(s) for wishes")
    }

    /// Ends every watching session (all at once) and their watches.
    public func stop() {
        for (session, _) in sessions { session.requestQuit() }
        DispatchQueue.concurrentPerform(iterations: sessions.count) { index in
            sessions[index].session.shutdown()
            sessions[index].watch.close()
        }
    }
}
