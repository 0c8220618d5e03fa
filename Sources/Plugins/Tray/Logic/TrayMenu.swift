import FoundationEssentials
import OtonJSON

/// A favourite as the tray lists it, from the `stations` command's data.
public struct TrayStation: Equatable, Sendable {
    public var number: Int
    public var name: String
    public var isCurrent: Bool

    public init(number: Int, name: String, isCurrent: Bool) {
        self.number = number
        self.name = name
        self.isCurrent = isCurrent
    }

    /// The stations of a `stations` reply (`{"ok":true,"data":{"stations":[{number,name,current}]}}`);
    /// nil when the reply is not one. At most `limit` are kept: a menu is not a list of thousands.
    public static func list(fromReply json: String, limit: Int = 50) -> [TrayStation]? {
        guard let reply = try? JSONValue.parse(Data(json.utf8), maxBytes: 1 << 20), reply["ok"]?.boolValue == true,
            let entries = reply["data"]?["stations"]?.arrayValue
        else { return nil }
        return entries.prefix(limit).compactMap { entry in
            guard let name = entry["name"]?.stringValue, let number = entry["number"]?.int64Value else { return nil }
            return TrayStation(number: Int(number), name: name, isCurrent: entry["current"]?.boolValue ?? false)
        }
    }
}

/// What a menu item does when clicked.
public enum TrayAction: Equatable, Sendable {
    case playPause
    case station(Int)
    case open
    case quit
}

/// One entry of the tray's menu as com.canonical.dbusmenu describes it.
public struct TrayMenuItem: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case standard
        case separator
        /// A radio item: a favourite, marked when it is the one playing.
        case radio(on: Bool)
    }

    public var id: Int32
    public var label: String
    public var kind: Kind
    public var action: TrayAction?
}

/// The tray's menu, pure: play/pause, the favourites, open the window, quit. Ids are stable
/// (a favourite's is 1000 + its number), so a click on a menu shown before a change still means
/// what it said. `revision` grows with every change (dbusmenu's LayoutUpdated).
public struct TrayMenu: Equatable, Sendable {
    public static let playPauseID: Int32 = 1
    public static let openID: Int32 = 2
    public static let quitID: Int32 = 3
    static let firstSeparatorID: Int32 = 10
    static let secondSeparatorID: Int32 = 11
    static let stationBase: Int32 = 1000

    public private(set) var playing = false
    public private(set) var stations: [TrayStation] = []
    public private(set) var revision: UInt32 = 1

    public init() {}

    /// True when the menu changed.
    public mutating func setPlaying(_ playing: Bool) -> Bool {
        guard playing != self.playing else { return false }
        self.playing = playing
        revision &+= 1
        return true
    }

    /// True when the menu changed.
    public mutating func setStations(_ stations: [TrayStation]) -> Bool {
        guard stations != self.stations else { return false }
        self.stations = stations
        revision &+= 1
        return true
    }

    /// The fixed labels, in the user's language.
    public struct Labels: Sendable {
        public var play = "Play", pause = "Pause", open = "Open Oton", quit = "Quit"
        public init() {}
        public init(play: String, pause: String, open: String, quit: String) {
            (self.play, self.pause, self.open, self.quit) = (play, pause, open, quit)
        }
    }

    /// The items in order.
    public func items(_ labels: Labels) -> [TrayMenuItem] {
        var items = [
            TrayMenuItem(id: Self.playPauseID, label: playing ? labels.pause : labels.play, kind: .standard, action: .playPause)
        ]
        if !stations.isEmpty {
            items.append(TrayMenuItem(id: Self.firstSeparatorID, label: "", kind: .separator, action: nil))
            items += stations.map {
                TrayMenuItem(
                    id: Self.stationBase + Int32(clamping: $0.number), label: Self.escaped($0.name), kind: .radio(on: $0.isCurrent),
                    action: .station($0.number))
            }
        }
        items.append(TrayMenuItem(id: Self.secondSeparatorID, label: "", kind: .separator, action: nil))
        items.append(TrayMenuItem(id: Self.openID, label: labels.open, kind: .standard, action: .open))
        items.append(TrayMenuItem(id: Self.quitID, label: labels.quit, kind: .standard, action: .quit))
        return items
    }

    /// What clicking item `id` does; nil for a separator or an id the menu does not have.
    public func action(for id: Int32) -> TrayAction? {
        switch id {
        case Self.playPauseID: return .playPause
        case Self.openID: return .open
        case Self.quitID: return .quit
        default:
            let number = Int(id) - Int(Self.stationBase)
            return stations.contains { $0.number == number } ? .station(number) : nil
        }
    }

    /// dbusmenu reads "_" as the access key's mark: a name's own underscores are doubled.
    static func escaped(_ name: String) -> String { name.split(separator: "_", omittingEmptySubsequences: false).joined(separator: "__") }
}
