import OtonEvents
import OtonMedia
import OtonStations

/// What the player holds, read from any thread (each read waits its turn on the player's queue).
extension Player {
    /// The state right now (read on the player's queue).
    public var state: PlaybackState {
        queue.sync { machine.state }
    }

    /// The stations to switch between, as the catalogue has them now (``StationCatalogue/list``). Any thread.
    public var stationList: StationList { stations.list }

    /// The station playing (or trying to), read on the player's queue.
    public var station: Station { snapshot.station }

    public var snapshot: Snapshot {
        queue.sync {
            Snapshot(
                state: machine.state, station: current, volume: fader.volume, engine: pipeline?.kind, connections: connection,
                receivedBytes: earlierConnectionsBytes + (pipeline?.flow.sourceBytes ?? 0),
                lastByteAt: pipeline.flatMap { $0.flow.lastSourceBytesAt > 0 ? $0.flow.lastSourceBytesAt : nil } ?? lastByteAtBefore,
                levelling: pipeline?.levelling, levellingEnabled: options.levelling == nil ? nil : levellingEnabled,
                timeshift: (pipeline as? TimeshiftEngine)?.position,
                effects: effects, effectReadings: pipeline?.effectReadings ?? [], filters: filters.map(\.name))
        }
    }
}
