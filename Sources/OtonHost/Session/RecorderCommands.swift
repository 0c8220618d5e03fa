import Foundation
import OtonControl
import OtonEvents
import OtonJSON
import OtonStations
import OtonSupport
import PluginAPI

/// The control socket of a recorder of several stations: `status` lists every station, `record
/// add|remove|list` changes the set while it runs, `quit` ends them all.
package struct RecorderCommands: ControlHandler {
    package let recorder: MultiRecorder

    package static let builtIn: [(name: String, usage: String, help: String)] = [
        ("status", "status", N_("every station: state, title, bytes, files, reconnects, last error, engine")),
        ("record", "record add NAME|URL · record remove NAME · record list", N_("start or finish recording a station while oton runs")),
        ("commands", "commands", N_("every command")),
        ("quit", "quit", N_("finish every recording and end oton")),
    ]

    package func run(_ request: ControlRequest) -> ControlReply {
        switch request.name {
        case "status": return status()
        case "record": return record(request.arguments)
        case "commands", "help":
            let list: [JSONValue] = Self.builtIn.map { ["name": .string($0.name), "usage": .string($0.usage), "help": .string($0.help), "plugin": "host"] }
            return .success(Self.builtIn.map { "\($0.usage)\n    \(tr($0.help))" }.joined(separator: "\n"), data: ["commands": .array(list)])
        case "quit": return .success(tr("finishing every recording"))
        default:
            return .failure(tr("unknown command \"{command}\" for a recorder of several stations; `oton ctl commands` lists them", ["command": request.name]))
        }
    }

    package func afterReply(_ request: ControlRequest) {
        if request.name == "quit" { recorder.requestQuit() }
    }

    private func record(_ arguments: [String]) -> ControlReply {
        guard let verb = arguments.first else { return .failure(tr("usage: record add NAME|URL, record remove NAME, record list")) }
        let argument = arguments.dropFirst().joined(separator: " ")
        switch verb {
        case "add":
            guard !argument.isEmpty else { return .failure(tr("usage: record add NAME|URL")) }
            // Never echoed back: a terminal would run the escapes (issue 39, N18).
            guard !TerminalText.hasControlOrInvisible(argument) else {
                return .failure(tr("the station contains control characters"))
            }
            do {
                // A station of the list or an http(s) URL, never a local file: whoever can reach the
                // control socket must not make a file of this machine a recording (issue 39, N7).
                let station: Station
                if let named = recorder.catalogue.station(named: argument) {
                    station = named
                } else {
                    station = try StationResolver.resolve(argument, among: recorder.catalogue.stations, runningOton: true)
                }
                // A second session of one stream would record every track twice (issue 39).
                if let running = recorder.sessions.first(where: { $0.session.station.url == station.url }) {
                    return .failure(tr("{station} is already being recorded into {folder}/", ["station": station.name, "folder": running.session.label]))
                }
                guard let session = recorder.add(station) else { return .failure(tr("oton is finishing its recordings; nothing is added")) }
                return .success(
                    tr("recording {station} into {folder}/", ["station": station.name, "folder": session.label]),
                    data: ["label": .string(session.label), "url": .string(station.url)])
            } catch {
                return .failure(error.description)
            }
        case "remove":
            guard !argument.isEmpty else { return .failure(tr("usage: record remove NAME (as `oton ctl status` lists it)")) }
            guard let session = recorder.remove(argument) else {
                return .failure(tr("no station \"{station}\" is recording; `oton ctl status` lists them", ["station": argument]))
            }
            return .success(tr("finishing {station}", ["station": session.label]), data: ["label": .string(session.label)])
        case "list":
            let names = recorder.sessions.map(\.session.label)
            return .success(names.joined(separator: "\n"), data: ["stations": .strings(names)])
        default:
            return .failure(tr("record {verb}: use record add NAME|URL, record remove NAME or record list", ["verb": verb]))
        }
    }

    private func status() -> ControlReply {
        var lines: [String] = []
        var list: [JSONValue] = []
        for (session, observer) in recorder.sessions {
            let snapshot = session.player.snapshot
            let state = session.bus.current(OTON_EVENT_STATE)?.event.fields
            let track = session.bus.current(OTON_EVENT_TRACK)?.event.fields
            let field = { (fields: [(key: String, value: String)]?, key: String) in fields?.last { $0.key == key }?.value }
            var entry: [String: JSONValue] = [
                "label": .string(session.label),
                "station": .string(session.station.name),
                "url": .string(session.station.url),
                "state": .string(field(state, OTON_FIELD_STATE) ?? "idle"),
                "bytes": .int(Int(clamping: snapshot.receivedBytes)),
                "files": .int(observer.filesWritten),
                "reconnects": .int(Int(clamping: snapshot.connections > 0 ? snapshot.connections - 1 : 0)),
            ]
            if let engine = snapshot.engine { entry["engine"] = .string(engine.rawValue) }
            if let last = snapshot.lastByteAt {
                entry["seconds_since_last_byte"] = .number(Double((Clock.monotonicNanoseconds() - last) / 1_000_000) / 1000)
            }
            entry["tracks"] = .int(Int(field(track, OTON_FIELD_SEQUENCE) ?? "") ?? 0)
            let drops = session.plugins.reports.compactMap { session.plugins.dropCounts(of: $0.id) }
            entry["dropped_events"] = .int(Int(clamping: drops.reduce(0) { $0 + $1.events }))
            entry["dropped_bytes"] = .int(Int(clamping: drops.reduce(0) { $0 + $1.mediaBytes }))
            for key in [OTON_FIELD_TITLE, OTON_FIELD_ARTIST, OTON_FIELD_TITLE_SOURCE] { entry[key] = field(track, key).map(JSONValue.string) }
            if let problem = field(state, OTON_FIELD_ERROR_MESSAGE) ?? observer.lastProblem { entry["last_error"] = .string(problem) }
            list.append(.object(entry))
            let song = SongText.line(
                artist: field(track, OTON_FIELD_ARTIST), title: field(track, OTON_FIELD_TITLE), source: field(track, OTON_FIELD_TITLE_SOURCE))
            // What the docs promise of the text: state, song, bytes, files, reconnects, the last error, the engine.
            func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
            let reconnects = Int(clamping: snapshot.connections > 0 ? snapshot.connections - 1 : 0)
            var line =
                "\(session.label) · \(field(state, OTON_FIELD_STATE) ?? "idle")\(song.isEmpty ? "" : " · " + song) · "
                + "\(counted(Int(clamping: snapshot.receivedBytes), "byte")) · \(counted(observer.filesWritten, "file"))"
            if reconnects > 0 { line += " · " + counted(reconnects, "reconnect") }
            if case let .string(problem)? = entry["last_error"] { line += " · last error: " + problem }
            if let engine = snapshot.engine { line += " · " + engine.rawValue }
            lines.append(line)
        }
        return .success(
            lines.isEmpty ? "no station is recording" : lines.joined(separator: "\n"),
            data: ["stations": .array(list), "recording": .int(list.count)])
    }
}
